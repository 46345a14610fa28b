/**
 * Worker fleet throughput (SPEC 13, 15.5) against two baselines measured in the same run, on
 * the PostgreSQL at DATABASE_URL (each part on schemas of its own, dropped after):
 *
 * 1. pg-boss 10 alone: its own `fetch` and `complete` of no-op jobs, one at a time from as many
 *    concurrent loops as the fleet has run slots (the queue's ceiling).
 * 2. One process: the short run of bench/fleet-runs.ts (a scripted model, one call of a real
 *    stdio MCP counting tool, an answer) by `agent.run` on the PostgreSQL store, one after
 *    the other and as many at once as the fleet has slots.
 * 3. The fleet: that run queued with `enqueue` and taken by worker processes
 *    (bench/fleet-worker.ts, `createWorker`), its rate from the jobs' own start and completion
 *    times (the database's clock), after a warm-up batch.
 *
 * The bar: the fleet's runs/s at least half of the better one-process rate, with 0 double
 * executions (each run's call logged once by the server). Skipped, with a notice, when
 * DATABASE_URL is unset.
 *
 *   npx tsx bench/worker-fleet.ts   (this section alone; BENCH_SCALE=0.2 for a quick pass)
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { startChild } from '../test/support/child-agent.js';
import type { ChildRun } from '../test/support/child-agent.js';
import { countingAgent } from './fleet-runs.js';
import type { TargetLine } from './mcp-report.js';
import { BENCH_SOURCE, loadStores, loadWorker, muster } from './muster.js';

/** Run slots, in the fleet and in the one process it is compared with. */
const FLEET_SLOTS = 16;
/**
 * Worker processes in the fleet: one per core, at most 4 (a deployment runs a worker per core;
 * more processes than cores only share them).
 */
export const FLEET_PROCESSES = Math.max(1, Math.min(4, availableParallelism()));
/** Runs each worker process takes at once: the slots shared among the processes. */
export const FLEET_CONCURRENCY = Math.ceil(FLEET_SLOTS / FLEET_PROCESSES);
/** The fleet's rate must be at least this share of one process's. */
export const FLEET_TARGET_RATIO = 0.5;

const SLOTS = FLEET_PROCESSES * FLEET_CONCURRENCY;
/** Rounds of the one-process and fleet runs, alternately. */
const ROUNDS = 3;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** What the section reports. */
export interface WorkerFleetReport {
  readonly lines: string[];
  readonly targets: TargetLine[];
  readonly summary: string;
}

/** A store schema, a pg-boss schema and a call log, and their cleanup. */
interface Scratch {
  readonly schema: string;
  readonly bossSchema: string;
  readonly log: string;
  query<R extends object>(text: string, values?: unknown[]): Promise<R[]>;
  /** How often each id was called (the server's log). */
  calls(): Map<string, number>;
  drop(): Promise<void>;
}

async function scratch(url: string, name: string): Promise<Scratch> {
  const id = randomBytes(4).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), `muster-bench-${name}-`));
  const log = join(dir, 'calls.log');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    schema: `muster_bench_${name}_${id}`,
    bossSchema: `pgboss_bench_${name}_${id}`,
    log,
    query: async <R extends object>(text: string, values?: unknown[]) =>
      (await client.query<R>(text, values)).rows,
    calls: () => {
      const counts = new Map<string, number>();
      if (!existsSync(log)) return counts;
      for (const line of readFileSync(log, 'utf8').split('\n')) {
        const id = line.split(' ')[0];
        if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    async drop() {
      await client.query(`DROP SCHEMA IF EXISTS "muster_bench_${name}_${id}" CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS "pgboss_bench_${name}_${id}" CASCADE`);
      await client.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs of ids that called the tool other than exactly once. */
function doubleOrMissing(calls: Map<string, number>, ids: readonly string[]): number {
  return ids.filter((id) => calls.get(id) !== 1).length + calls.size - ids.length;
}

/** Runs `task` over `items`, `width` at a time. */
async function pooled<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/** pg-boss alone: `jobs` no-op jobs fetched and completed one at a time, {@link SLOTS} loops. */
async function bossRate(url: string, jobs: number): Promise<number> {
  const s = await scratch(url, 'boss');
  const boss = new PgBoss({ connectionString: url, schema: s.bossSchema, schedule: false });
  boss.on('error', () => undefined);
  try {
    await boss.start();
    await boss.createQueue('noop');
    await boss.insert(Array.from({ length: jobs }, () => ({ name: 'noop', data: {} })));
    const started = performance.now();
    let done = 0;
    await Promise.all(
      Array.from({ length: SLOTS }, async () => {
        for (;;) {
          const [job] = await boss.fetch('noop', { batchSize: 1 });
          if (job === undefined) return;
          await boss.complete('noop', job.id);
          done++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (done !== jobs) throw new Error(`bench: pg-boss completed ${done} of ${jobs} jobs`);
    return jobs / seconds;
  } finally {
    await boss.stop({ graceful: false, wait: true });
    await s.drop();
  }
}

/** One process: `agent.run` of each id, `width` at a time; runs/s and the call check. */
async function oneProcessRate(
  url: string,
  runs: number,
  width: number,
): Promise<{ rate: number; wrong: number }> {
  const { PostgresSessionStore } = (await loadStores()).postgres;
  const s = await scratch(url, 'one');
  const store = new PostgresSessionStore({ connectionString: url, schema: s.schema });
  const agent = countingAgent(store, s.log);
  const run = async (id: string) => {
    for await (const ev of agent.run({ input: id, sessionId: id }))
      if (ev.type === 'session.failed') throw new Error(`bench: run ${id} failed`);
  };
  try {
    await agent.initialize();
    const warm = Array.from({ length: Math.max(5, width) }, (_, i) => `w-${i}`);
    await pooled(warm, width, run);
    const ids = Array.from({ length: runs }, (_, i) => `r-${i}`);
    const started = performance.now();
    await pooled(ids, width, run);
    const seconds = (performance.now() - started) / 1000;
    return { rate: runs / seconds, wrong: doubleOrMissing(s.calls(), [...warm, ...ids]) };
  } finally {
    await agent.close();
    await store.close();
    await s.drop();
  }
}

/**
 * The fleet: `runs` runs queued behind a warm-up batch before {@link FLEET_PROCESSES} worker
 * processes start taking jobs (together, once all are loaded), so neither the producer's
 * sends nor a process's start-up fall in the measured span, and every worker always finds a
 * job; the rate is taken from the runs' jobs, first `started_on` to last `completed_on`.
 */
async function fleetRate(url: string, runs: number): Promise<{ rate: number; wrong: number }> {
  const { PostgresSessionStore } = (await loadStores()).postgres;
  const { createWorker } = await loadWorker();
  const s = await scratch(url, 'fleet');
  const store = new PostgresSessionStore({ connectionString: url, schema: s.schema });
  const agent = muster.createAgent({ sessionStore: store });
  const producer = createWorker({ agent, connectionString: url, schema: s.bossSchema });
  const children: ChildRun[] = [];
  const enqueue = async (prefix: string, count: number) => {
    const ids = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
    // in order: the queue hands out jobs by creation time
    await pooled(ids, 8, async (id) => void (await producer.enqueue({ input: id, sessionId: id })));
    return ids;
  };
  try {
    const warm = await enqueue('w-', SLOTS * 2);
    const ids = await enqueue('r-', runs);
    for (let i = 0; i < FLEET_PROCESSES; i++)
      children.push(
        startChild(
          'bench/fleet-worker.ts',
          {
            FLEET_DB: url,
            FLEET_SCHEMA: s.schema,
            FLEET_BOSS_SCHEMA: s.bossSchema,
            FLEET_LOG: s.log,
            FLEET_CONCURRENCY: String(FLEET_CONCURRENCY),
          },
          { stdin: true },
        ),
      );
    // every process loaded and connected before any takes a job
    await Promise.all(children.map((c) => c.line('READY')));
    for (const c of children) c.child.stdin!.write('go\n');
    const total = warm.length + ids.length;
    const deadline = Date.now() + 600_000;
    for (;;) {
      const [row] = await s.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${s.bossSchema}".job WHERE name = 'muster' AND state = 'completed'`,
      );
      if (Number(row!.n) >= total) break;
      if (Date.now() > deadline) throw new Error('bench: the fleet did not finish its runs');
      for (const c of children)
        if (c.child.exitCode !== null) throw new Error(`bench: a worker exited: ${c.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const [span] = await s.query<{ seconds: number }>(
      `SELECT EXTRACT(EPOCH FROM max(completed_on) - min(started_on))::float8 AS seconds
       FROM "${s.bossSchema}".job WHERE name = 'muster' AND data->>'sessionId' LIKE 'r-%'`,
    );
    return { rate: runs / span!.seconds, wrong: doubleOrMissing(s.calls(), [...warm, ...ids]) };
  } finally {
    for (const c of children) c.child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    await producer.stop();
    await agent.close();
    await store.close();
    await s.drop();
  }
}

/** Runs the section, or says why it is skipped. */
export async function measureWorkerFleet(scale: number): Promise<WorkerFleetReport> {
  const url = process.env['DATABASE_URL'];
  if (!url)
    return {
      lines: [
        '   skipped: DATABASE_URL is not set (pg-boss, the one-process runs and the fleet need PostgreSQL)',
      ],
      targets: [],
      summary: 'fleet n/a',
    };
  // the fleet's worker processes run the built package as plain node scripts
  if (BENCH_SOURCE === 'src')
    return {
      lines: [
        '   skipped: BENCH_SOURCE=src (the worker processes need the built package: npm run build)',
      ],
      targets: [],
      summary: 'fleet n/a',
    };
  const n = (base: number) => Math.max(10, Math.round(base * scale));
  const jobs = n(3_000);
  const sequentialRuns = n(100);
  // at least 120 a round even on a quick pass: with 16 slots, fewer runs are mostly the
  // first and last waves, when not every slot is busy
  const runs = Math.max(120, n(200));
  const boss = await bossRate(url, jobs);
  const sequential = await oneProcessRate(url, sequentialRuns, 1);
  // alternately, so load on a shared machine falls on both alike; medians compared
  const concurrentRounds: { rate: number; wrong: number }[] = [];
  const fleetRounds: { rate: number; wrong: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    concurrentRounds.push(await oneProcessRate(url, runs, SLOTS));
    fleetRounds.push(await fleetRate(url, runs));
  }
  const concurrent = median(concurrentRounds.map((r) => r.rate));
  const fleet = median(fleetRounds.map((r) => r.rate));
  const best = Math.max(sequential.rate, concurrent);
  const ratio = fleet / best;
  const wrong = [sequential, ...concurrentRounds, ...fleetRounds].reduce((a, r) => a + r.wrong, 0);
  const met = ratio >= FLEET_TARGET_RATIO && wrong === 0;
  const row = (label: string, rate: number, count: number, unit = 'runs/s') =>
    `     ${label.padEnd(62)}${rate.toFixed(1).padStart(9)} ${unit.padEnd(7)}${String(count).padStart(7)}`;
  const lines = [
    `   short runs (scripted model, one stdio MCP call, an answer) on one PostgreSQL; ${SLOTS} run slots where concurrent:`,
    `     ${''.padEnd(62)}${'rate'.padStart(9)} ${''.padEnd(7)}${'n'.padStart(7)}`,
    row(`pg-boss 10 alone: fetch + complete of no-op jobs, ${SLOTS} loops`, boss, jobs, 'jobs/s'),
    row('one process, agent.run one after the other', sequential.rate, sequentialRuns),
    row(`one process, agent.run ${SLOTS} at once (median of ${ROUNDS})`, concurrent, runs),
    row(
      `fleet: ${FLEET_PROCESSES} processes x concurrency ${FLEET_CONCURRENCY}, createWorker (median of ${ROUNDS})`,
      fleet,
      runs,
    ),
    `     rounds, one process / fleet: ${concurrentRounds.map((r, i) => `${r.rate.toFixed(1)} / ${fleetRounds[i]!.rate.toFixed(1)}`).join(', ')} runs/s`,
    `     fleet / one process ${ratio.toFixed(2)}x (of ${best.toFixed(1)} runs/s), fleet / pg-boss alone ${(fleet / boss).toFixed(2)}x; calls not run exactly once: ${wrong}`,
  ];
  return {
    lines,
    targets: [
      {
        name: 'worker fleet',
        met,
        text: `worker fleet ${fleet.toFixed(1)} runs/s = ${(ratio * 100).toFixed(1)}% of one process (${best.toFixed(1)} runs/s), ${wrong} double or lost executions, target >= ${FLEET_TARGET_RATIO * 100}% and 0: ${met ? 'met' : 'NOT MET'}`,
      },
    ],
    summary: `fleet ${fleet.toFixed(0)} runs/s (${ratio.toFixed(2)}x one process, pg-boss alone ${boss.toFixed(0)} jobs/s)`,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const scale = Number(process.env['BENCH_SCALE'] ?? '1');
  const report = await measureWorkerFleet(scale > 0 ? scale : 1);
  process.stdout.write(
    `worker fleet\n${report.lines.join('\n')}\n${report.targets.map((t) => `   ${t.met ? 'met    ' : 'NOT MET'}  ${t.text}`).join('\n')}\n${report.summary}\n`,
  );
}
