/**
 * Session store benchmarks: the cost of one per-step commit on SQLite and PostgreSQL against
 * the memory store, the heap held by 1,000 idle sessions on each store, and the throughput of
 * four replica processes sharing one PostgreSQL database. PostgreSQL parts need DATABASE_URL.
 *
 *   npx tsx bench/session-stores.ts   (this section alone; BENCH_SCALE=0.2 for a quick pass)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { SessionStore } from '../src/index.js';
import { createCluster } from '../test/replicas/replica-cluster.js';
import { loadStores, muster } from './muster.js';

import { forcedGc } from './gc.js';
import type { ForcedGc } from './gc.js';
import { measureIdleSessions } from './idle-sessions.js';

const { MemorySessionStore } = muster;
const {
  postgres: { PostgresSessionStore },
  sqlite: { SqliteSessionStore },
} = await loadStores();

const MB = 1024 * 1024;

interface StoreCase {
  readonly name: string;
  make(): Promise<{ store: SessionStore; dispose(): Promise<void> }>;
}

function storeCases(url: string | undefined): StoreCase[] {
  const cases: StoreCase[] = [
    {
      name: 'memory',
      make: async () => ({ store: new MemorySessionStore(), dispose: async () => undefined }),
    },
    {
      name: 'SQLite',
      make: async () => {
        const dir = mkdtempSync(join(tmpdir(), 'muster-bench-'));
        const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
        return {
          store,
          dispose: async () => {
            store.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ];
  if (url)
    cases.push({
      name: 'PostgreSQL',
      make: async () => {
        const schema = `muster_bench_${Date.now().toString(36)}`;
        const store = new PostgresSessionStore({ connectionString: url, schema });
        return {
          store,
          dispose: async () => {
            await store.close();
            const c = new pg.Client({ connectionString: url });
            await c.connect();
            await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
            await c.end();
          },
        };
      },
    });
  return cases;
}

/** Median ms of one step commit: one message appended under the run's lease. */
async function commitCost(store: SessionStore, steps: number): Promise<number> {
  const now = new Date().toISOString();
  await store.create({
    id: 'bench',
    status: 'running',
    messages: [],
    iteration: 0,
    createdAt: now,
    updatedAt: now,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    archiveRefs: [],
    startedCalls: [],
  });
  const lease = (await store.acquire!('bench', 'bench-run', 60_000))!;
  const message = {
    role: 'tool' as const,
    callId: 'c',
    toolName: 't',
    content: 'x'.repeat(200),
    isError: false,
  };
  const samples: number[] = [];
  for (let i = 0; i < steps; i++) {
    const t = performance.now();
    await store.update('bench', { appendMessages: [message] }, { lease });
    samples.push(performance.now() - t);
  }
  await lease.release();
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

async function replicaThroughput(url: string, sessions: number): Promise<number> {
  const cluster = await createCluster(url);
  try {
    await cluster.seed(sessions);
    const replicas = cluster.start(4, { REPLICA_TOOL_MS: '0', REPLICA_TURNS: '3' });
    await Promise.all(replicas.map((r) => r.line('READY')));
    const t = performance.now();
    await cluster.go();
    await Promise.all(replicas.map((r) => r.line('DONE')));
    const seconds = (performance.now() - t) / 1000;
    await Promise.all(replicas.map((r) => r.exited));
    return sessions / seconds;
  } finally {
    await cluster.drop();
  }
}

/** Runs the section and returns its report lines and a one-line summary. */
export async function measureSessionStores(
  scale: number,
  gc: ForcedGc,
): Promise<{ lines: string[]; summary: string }> {
  const url = process.env['DATABASE_URL'];
  const n = (base: number) => Math.max(10, Math.round(base * scale));
  const lines: string[] = [];
  const cost: Record<string, number> = {};
  for (const c of storeCases(url)) {
    const made = await c.make();
    try {
      cost[c.name] = await commitCost(made.store, n(1_000));
    } finally {
      await made.dispose();
    }
  }
  lines.push('   per-step commit (one message under the run lease), median:');
  for (const [name, ms] of Object.entries(cost))
    lines.push(
      `     ${name.padEnd(10)} ${ms.toFixed(3)} ms/commit  (${(ms / cost['memory']!).toFixed(1)}x memory)`,
    );
  const idle: Record<string, number> = {};
  for (const c of storeCases(url)) {
    const made = await c.make();
    try {
      gc.collect();
      idle[c.name] = (await measureIdleSessions(1_000, gc, made.store)).heapDeltaBytes;
    } finally {
      await made.dispose();
    }
  }
  lines.push('   heap held by 1,000 idle one-turn sessions:');
  for (const [name, bytes] of Object.entries(idle))
    lines.push(`     ${name.padEnd(10)} ${(bytes / MB).toFixed(2)} MB`);
  let throughput: number | undefined;
  if (url) {
    throughput = await replicaThroughput(url, n(1_000));
    lines.push(
      `   4 replica processes on one PostgreSQL database, ${n(1_000)} sessions of 4 turns and 3 tool calls: ${throughput.toFixed(1)} sessions/s`,
    );
  } else {
    lines.push('   PostgreSQL parts skipped: DATABASE_URL is not set');
  }
  const ratio = (name: string) =>
    cost[name] !== undefined ? `${(cost[name] / cost['memory']!).toFixed(0)}x` : 'n/a';
  return {
    lines,
    summary: `commit SQLite ${ratio('SQLite')} / PostgreSQL ${ratio('PostgreSQL')} memory, 4 replicas ${throughput?.toFixed(0) ?? 'n/a'} sessions/s`,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const scale = Number(process.env['BENCH_SCALE'] ?? '1');
  const { lines, summary } = await measureSessionStores(scale > 0 ? scale : 1, forcedGc());
  process.stdout.write(`session stores\n${lines.join('\n')}\nsession stores: ${summary}\n`);
}
