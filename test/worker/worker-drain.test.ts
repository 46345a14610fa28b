import { afterAll, describe, expect, it, vi } from 'vitest';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';

// SPEC 15.5: SIGTERM drains a worker: it takes no new job, stops a step that outlives drainMs,
// queues that session's resume, and its lease rows are released before the process exits.

const FIXTURE = 'test/fixtures/worker/worker-process.ts';
const url = databaseUrl();

describe.skipIf(!url)('a worker process drained by SIGTERM', () => {
  const db = workerDb(url ?? '', 'drain');
  const children: ChildRun[] = [];
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await db.drop();
  });

  it('a step still going on after drainMs is stopped, its lease released before exit, its resume queued', async () => {
    const child = startChild(
      FIXTURE,
      db.env({ WORKER_TOOL: 'hold', WORKER_DRAIN_MS: '300', WORKER_CONCURRENCY: '2' }),
    );
    children.push(child);
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    const liveLeases = async () =>
      (
        await db.query<{ session_id: string }>(
          `SELECT session_id FROM "${db.schema}".muster_leases WHERE owner IS NOT NULL AND expires_at > now()`,
        )
      ).map((r) => r.session_id);
    try {
      await child.line('READY');
      await producer.enqueue({ input: 'Hold "s-1".', sessionId: 's-1' });
      await producer.enqueue({ input: 'Hold "s-2".', sessionId: 's-2' });
      // both calls are in the server: both runs hold their leases
      await vi.waitFor(() => expect(db.calls().length).toBe(2), { timeout: 20_000, interval: 50 });
      expect((await liveLeases()).sort()).toEqual(['s-1', 's-2']);

      child.child.kill('SIGTERM');
      // read by the process after drain() and before it exits
      expect(await child.line('LEASES')).toBe('0');
      expect((await child.exited).code, child.stderr()).toBe(0);
      expect(await liveLeases()).toEqual([]);
      // neither run is lost: each has a resume queued for the next worker
      const resumes = await db.query<{ key: string }>(
        `SELECT singleton_key AS key FROM "${db.bossSchema}".job
         WHERE name = 'muster' AND data->>'why' = 'interrupted' AND state = 'created' ORDER BY 1`,
      );
      expect(resumes.map((r) => r.key)).toEqual(['s-1', 's-2']);
      // the started jobs are completed, not left active to block their sessions
      const active = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${db.bossSchema}".job WHERE name = 'muster' AND state = 'active'`,
      );
      expect(active[0]!.n).toBe('0');
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 60_000);
});
