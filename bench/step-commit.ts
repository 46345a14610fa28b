/**
 * The step commit of the durable stores against the cheapest durable write of the same kind
 * (issue 28): one step as a run commits it (a tool result message, three logged events, the
 * iteration and usage, under the run's lease) beside a one-row INSERT in autocommit, measured
 * in the same run, alternately, on the same kind of connection: a `better-sqlite3` connection
 * to a WAL file with `synchronous = NORMAL` (the store's default) and a `pg` client on
 * `DATABASE_URL`. The PostgreSQL figure is skipped, with a notice, when `DATABASE_URL` is unset.
 *
 *   npx tsx bench/step-commit.ts   (this section alone; BENCH_SCALE=0.2 for a quick pass)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { SessionLogEvent, SessionPatch, SessionStore } from '../src/index.js';
import { loadStores } from './muster.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';
import type { TargetLine } from './mcp-report.js';

/** PostgreSQL: a step commit may cost at most this many one-row INSERTs (one round trip). */
export const POSTGRES_COMMIT_TARGET_X = 2;
/** SQLite: a step commit's p50 must be at most this, in ms, on an idle machine. */
export const SQLITE_COMMIT_TARGET_MS = 0.2;

/** One store's step commit and its INSERT baseline, in ms. */
export interface StepCommitFigures {
  readonly store: 'SQLite' | 'PostgreSQL';
  readonly commitMs: Summary;
  readonly insertMs: Summary;
}

/** What the section reports. */
export interface StepCommitReport {
  readonly lines: string[];
  readonly targets: TargetLine[];
  readonly summary: string;
}

/** One side of the comparison: the store's commit and a one-row INSERT, each one sample. */
interface Pair {
  commit(): Promise<unknown>;
  insert(): unknown;
  dispose(): Promise<void>;
}

const SESSION = 'bench-step';
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
const ROW_BODY = JSON.stringify({ role: 'tool', content: 'x'.repeat(200) });

/** The patches of successive steps: a 200-character tool result and three logged events. */
function steps(): () => SessionPatch {
  let seq = 0;
  let iteration = 0;
  const message = {
    role: 'tool' as const,
    callId: 'c',
    toolName: 't',
    content: 'x'.repeat(200),
    isError: false,
  };
  const event = (type: string): SessionLogEvent => {
    const s = ++seq;
    return {
      seq: s,
      type,
      json: JSON.stringify({ type, seq: s, sessionId: SESSION, runId: 'r', toolName: 't' }),
    };
  };
  return () => ({
    appendMessages: [message],
    appendEvents: [event('tool.called'), event('tool.completed'), event('model.requested')],
    iteration: ++iteration,
    addUsage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  });
}

/** A session under a lease, and a function that commits its next step. */
async function leasedSteps(store: SessionStore): Promise<{
  commit(): Promise<unknown>;
  release(): Promise<void>;
}> {
  const now = new Date().toISOString();
  await store.create({
    id: SESSION,
    status: 'running',
    messages: [],
    iteration: 0,
    createdAt: now,
    updatedAt: now,
    usage,
    archiveRefs: [],
    startedCalls: [],
  });
  const lease = (await store.acquire!(SESSION, 'bench-run', 600_000))!;
  const next = steps();
  return {
    commit: () => store.update(SESSION, next(), { lease }),
    release: () => lease.release(),
  };
}

async function sqlitePair(): Promise<Pair> {
  const { SqliteSessionStore } = (await loadStores()).sqlite;
  const dir = mkdtempSync(join(tmpdir(), 'muster-bench-commit-'));
  const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
  const side = new Database(join(dir, 'insert.db'));
  side.pragma('journal_mode = WAL');
  side.pragma('synchronous = NORMAL');
  side.exec('CREATE TABLE bench_insert (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = side.prepare('INSERT INTO bench_insert (body) VALUES (?)');
  const steps = await leasedSteps(store);
  return {
    commit: steps.commit,
    insert: () => insert.run(ROW_BODY),
    dispose: async () => {
      await steps.release();
      store.close();
      side.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresPair(url: string): Promise<Pair> {
  const { PostgresSessionStore } = (await loadStores()).postgres;
  const schema = `muster_bench_commit_${Date.now().toString(36)}`;
  const store = new PostgresSessionStore({ connectionString: url, schema });
  const steps = await leasedSteps(store);
  // in the store's schema (made by now), on a connection of its own
  const side = new pg.Client({ connectionString: url });
  await side.connect();
  await side.query(
    `CREATE TABLE "${schema}".bench_insert (id bigserial PRIMARY KEY, body text NOT NULL)`,
  );
  // prepared once, like the store's step commit
  const insert = {
    name: 'bench_insert',
    text: `INSERT INTO "${schema}".bench_insert (body) VALUES ($1)`,
    values: [ROW_BODY],
  };
  return {
    commit: steps.commit,
    insert: () => side.query(insert),
    dispose: async () => {
      await steps.release();
      await store.close();
      await side.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await side.end();
    },
  };
}

/** Alternates commits and INSERTs (so load on a shared machine falls on both alike). */
async function measurePair(pair: Pair, warmup: number, samples: number) {
  const commit: number[] = [];
  const insert: number[] = [];
  for (let i = 0; i < warmup + samples; i++) {
    const a = performance.now();
    await pair.commit();
    const b = performance.now();
    await pair.insert();
    const c = performance.now();
    if (i < warmup) continue;
    commit.push(b - a);
    insert.push(c - b);
  }
  return { commitMs: summarize(commit), insertMs: summarize(insert) };
}

const ms = (v: number) => `${v.toFixed(3)} ms`;

/** Runs the section: SQLite always, PostgreSQL when `DATABASE_URL` is set. */
export async function measureStepCommit(scale: number): Promise<StepCommitReport> {
  const n = (base: number) => Math.max(10, Math.round(base * scale));
  const url = process.env['DATABASE_URL'];
  const figures: StepCommitFigures[] = [];
  const lines: string[] = [];
  const targets: TargetLine[] = [];
  const sides: [StepCommitFigures['store'], () => Promise<Pair>, number][] = [
    ['SQLite', sqlitePair, n(2_000)],
  ];
  if (url) sides.push(['PostgreSQL', () => postgresPair(url), n(1_000)]);
  for (const [store, open, samples] of sides) {
    const pair = await open();
    try {
      figures.push({ store, ...(await measurePair(pair, Math.ceil(samples / 10), samples)) });
    } finally {
      await pair.dispose();
    }
  }
  lines.push(
    '   step commit (a tool result, 3 logged events, iteration and usage, under the lease) and a one-row INSERT in autocommit, alternately:',
  );
  lines.push(
    `     ${'store'.padEnd(11)}${'commit p50'.padStart(12)}${'p90'.padStart(10)}${'INSERT p50'.padStart(12)}${'p90'.padStart(10)}${'commit/INSERT'.padStart(15)}${'n'.padStart(7)}`,
  );
  for (const f of figures) {
    const ratio = f.commitMs.median / f.insertMs.median;
    lines.push(
      `     ${f.store.padEnd(11)}${f.commitMs.median.toFixed(3).padStart(12)}${f.commitMs.p90.toFixed(3).padStart(10)}${f.insertMs.median.toFixed(3).padStart(12)}${f.insertMs.p90.toFixed(3).padStart(10)}${`${ratio.toFixed(2)}x`.padStart(15)}${String(f.commitMs.n).padStart(7)}`,
    );
    if (f.store === 'SQLite') {
      const met = f.commitMs.median <= SQLITE_COMMIT_TARGET_MS;
      targets.push({
        name: 'SQLite step commit',
        met,
        text: `SQLite step commit p50 ${ms(f.commitMs.median)} (INSERT ${ms(f.insertMs.median)}), target <= ${SQLITE_COMMIT_TARGET_MS} ms on an idle machine: ${met ? 'met' : 'NOT MET'}`,
      });
    } else {
      const met = ratio <= POSTGRES_COMMIT_TARGET_X;
      targets.push({
        name: 'PostgreSQL step commit',
        met,
        text: `PostgreSQL step commit p50 ${ms(f.commitMs.median)} = ${ratio.toFixed(2)}x a one-row INSERT (${ms(f.insertMs.median)}), target <= ${POSTGRES_COMMIT_TARGET_X}x: ${met ? 'met' : 'NOT MET'}`,
      });
    }
  }
  if (!url)
    lines.push(
      '   PostgreSQL step commit skipped: DATABASE_URL is not set (no INSERT baseline either)',
    );
  const part = (store: string) => {
    const f = figures.find((x) => x.store === store);
    return f
      ? `${store} ${f.commitMs.median.toFixed(3)} ms (${(f.commitMs.median / f.insertMs.median).toFixed(2)}x INSERT)`
      : `${store} n/a`;
  };
  return { lines, targets, summary: `step commit ${part('SQLite')}, ${part('PostgreSQL')}` };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const scale = Number(process.env['BENCH_SCALE'] ?? '1');
  const report = await measureStepCommit(scale > 0 ? scale : 1);
  process.stdout.write(
    `step commit\n${report.lines.join('\n')}\n${report.targets.map((t) => `   ${t.met ? 'met    ' : 'NOT MET'}  ${t.text}`).join('\n')}\n${report.summary}\n`,
  );
}
