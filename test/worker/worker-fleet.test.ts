import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: four worker processes take 100 queued runs, each calling a real MCP tool once.

const FIXTURE = 'test/fixtures/worker/worker-process.ts';
const url = databaseUrl();
const SESSIONS = 100;

describe.skipIf(!url)('a fleet of worker processes', () => {
  const db = workerDb(url ?? '', 'fleet');
  const children: ChildRun[] = [];
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await db.drop();
  });

  it('4 processes, 100 sessions: every session completes, each call runs once, no message is lost, and SIGTERM leaves no lease', async () => {
    for (let i = 0; i < 4; i++)
      children.push(startChild(FIXTURE, db.env({ WORKER_CONCURRENCY: '4' })));
    // the test enqueues from a process that takes no job (no start())
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    try {
      await Promise.all(children.map((c) => c.line('READY')));
      const ids = Array.from({ length: SESSIONS }, (_, i) => `s-${i}`);
      const queued = await Promise.all(
        ids.map((id) => producer.enqueue({ input: `Count "${id}".`, sessionId: id })),
      );
      expect(queued.map((q) => q.sessionId)).toEqual(ids);

      await vi.waitFor(
        async () => {
          const page = await store.list({ status: 'completed', limit: 1000 });
          expect(page.sessions.length).toBe(SESSIONS);
        },
        { timeout: 50_000, interval: 200 },
      );

      // each call ran exactly once, server-side
      const calls = db.calls().map((l) => l.split(' ')[0]);
      expect(calls.sort()).toEqual([...ids].sort());
      // every call carries its idempotency key, <sessionId>:<callId> (SPEC 15.5)
      for (const line of db.calls()) {
        const [id, , key] = line.split(' ');
        expect(key, line).toBe(`${id}:call_tally`);
      }
      // no message lost: user, the tool call, its result, the answer, all under a lease
      for (const id of ids) {
        const state = await store.get(id);
        expect(state?.messages.map((m) => m.role)).toEqual([
          'user',
          'assistant',
          'tool',
          'assistant',
        ]);
        expect(state?.finalContent).toBe(`done ${id}`);
      }
      const unfenced = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${db.schema}".muster_messages WHERE lease_token IS NULL`,
      );
      expect(unfenced[0]!.n).toBe('0');
      const jobs = await db.query<{ state: string; n: string }>(
        `SELECT state, count(*) AS n FROM "${db.bossSchema}".job WHERE name = 'muster' GROUP BY state`,
      );
      expect(jobs).toEqual([{ state: 'completed', n: String(SESSIONS) }]);

      // a start job for a session that has run is idempotent: nothing runs twice
      const again = await producer.enqueue({ input: 'Count "s-0".', sessionId: 's-0' });
      await vi.waitFor(
        async () => {
          const [job] = await db.query<{ state: string }>(
            `SELECT state FROM "${db.bossSchema}".job WHERE id = $1`,
            [again.jobId],
          );
          expect(job?.state).toBe('completed');
        },
        { timeout: 20_000, interval: 100 },
      );
      expect(db.calls()).toHaveLength(SESSIONS);
      expect((await store.get('s-0'))?.messages).toHaveLength(4);

      for (const c of children) c.child.kill('SIGTERM');
      for (const c of children) {
        expect(await c.line('LEASES')).toBe('0');
        expect((await c.exited).code, c.stderr()).toBe(0);
      }
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 90_000);
});
