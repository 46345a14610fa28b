import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent, MusterError } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: a decision and its session's resume job commit together; each decided session is
// resumed by exactly one worker; a decision rolled back leaves no job.

const FIXTURE = 'test/fixtures/worker/worker-process.ts';
const url = databaseUrl();
const SESSIONS = 100;

describe.skipIf(!url)('parked runs decided, resumed by workers', () => {
  const db = workerDb(url ?? '', 'waits');
  const children: ChildRun[] = [];
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    await db.drop();
  });

  it(`${SESSIONS} parked runs: each decision queues one resume, each session is resumed by one worker, a rolled-back decision queues nothing`, async () => {
    for (let i = 0; i < 2; i++)
      children.push(startChild(FIXTURE, db.env({ WORKER_PARK: '1', WORKER_CONCURRENCY: '4' })));
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const agent = createAgent({ sessionStore: store });
    const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    const resumeJobs = async (sessionId?: string) =>
      Number(
        (
          await db.query<{ n: string }>(
            `SELECT count(*) AS n FROM "${db.bossSchema}".job
             WHERE name = 'muster' AND data->>'why' = 'decided' AND ($1::text IS NULL OR singleton_key = $1)`,
            [sessionId ?? null],
          )
        )[0]!.n,
      );
    try {
      await Promise.all(children.map((c) => c.line('READY')));
      const ids = Array.from({ length: SESSIONS }, (_, i) => `s-${i}`);
      await Promise.all(
        ids.map((id) => producer.enqueue({ input: `Count "${id}".`, sessionId: id })),
      );
      await vi.waitFor(
        async () => {
          const page = await store.list({ status: 'parked', limit: 1000 });
          expect(page.sessions.length).toBe(SESSIONS);
        },
        { timeout: 50_000, interval: 200 },
      );
      expect(db.calls()).toEqual([]);
      const waits = (await agent.sessions.waits({ limit: 1000 })).waits;
      expect(waits).toHaveLength(SESSIONS);

      // a decision whose transaction rolls back (its event cannot be built) queues nothing
      const first = waits.find((w) => w.sessionId === 's-0')!;
      const failed = await store.waits
        .decide(
          's-0',
          first.id,
          { decision: 'allow' },
          {
            event: () => {
              throw new MusterError('INTERNAL_ERROR', 'the event failed');
            },
          },
        )
        .catch((err: unknown) => err);
      expect(MusterError.isInstance(failed) && failed.code).toBe('INTERNAL_ERROR');
      expect(await resumeJobs('s-0')).toBe(0);
      expect((await store.waits.get('s-0', first.id))?.status).toBe('pending');

      await Promise.all(
        waits.map((w) => agent.decide(w.sessionId, w.id, { decision: 'allow', reason: 'ok' })),
      );
      await vi.waitFor(
        async () => {
          const page = await store.list({ status: 'completed', limit: 1000 });
          expect(page.sessions.length).toBe(SESSIONS);
        },
        { timeout: 50_000, interval: 200 },
      );

      // one resume job per session, each call ran once (after its approval)
      const perSession = await db.query<{ key: string; n: string }>(
        `SELECT singleton_key AS key, count(*) AS n FROM "${db.bossSchema}".job
         WHERE name = 'muster' AND data->>'why' = 'decided' GROUP BY singleton_key`,
      );
      expect(perSession).toHaveLength(SESSIONS);
      expect(perSession.every((r) => r.n === '1')).toBe(true);
      // the other resume of each: its waits' expiry, a delayed job that has not started
      const later = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${db.bossSchema}".job WHERE name = 'muster'
           AND data->>'why' = 'expires' AND state = 'created' AND start_after > now() + interval '6 days'`,
      );
      expect(later[0]!.n).toBe(String(SESSIONS));
      expect(
        db
          .calls()
          .map((l) => l.split(' ')[0])
          .sort(),
      ).toEqual([...ids].sort());
      // the run that parked wrote the first two messages, one resumed run (one lease) the rest
      const owners = await db.query<{ session_id: string; before: string; after: string }>(
        `SELECT session_id,
           count(DISTINCT lease_owner) FILTER (WHERE seq < 2) AS before,
           count(DISTINCT lease_owner) FILTER (WHERE seq >= 2) AS after
         FROM "${db.schema}".muster_messages GROUP BY session_id`,
      );
      expect(owners).toHaveLength(SESSIONS);
      expect(owners.filter((o) => o.before !== '1' || o.after !== '1')).toEqual([]);
      for (const id of ids) {
        const state = await store.get(id);
        expect(state?.messages.map((m) => m.role)).toEqual([
          'user',
          'assistant',
          'tool',
          'assistant',
        ]);
      }

      for (const c of children) c.child.kill('SIGTERM');
      for (const c of children) expect((await c.exited).code, c.stderr()).toBe(0);
    } finally {
      await producer.stop();
      await agent.close();
      await store.close();
    }
  }, 120_000);

  it('without a worker, a decision queues nothing', async () => {
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    try {
      await store.waits.put({
        id: 'w1',
        sessionId: 'lonely',
        runId: 'run_1',
        kind: 'approval',
        createdAt: new Date().toISOString(),
        fingerprint: 'f'.repeat(64),
        status: 'pending',
      });
      await store.waits.decide('lonely', 'w1', { decision: 'allow' });
      const jobs = await db.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${db.bossSchema}".job WHERE singleton_key = 'lonely'`,
      );
      expect(jobs[0]!.n).toBe('0');
    } finally {
      await store.close();
    }
  });
});
