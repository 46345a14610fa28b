import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { sweepOrphans } from '../../src/worker/lease-sweep.js';
import { openWorkerBoss } from '../../src/worker/worker-boss.js';
import type { WorkerBoss } from '../../src/worker/worker-boss.js';
import { resolveWorkerOptions } from '../../src/worker/worker-options.js';
import { databaseUrl } from '../support/database.js';
import { sessionState } from '../support/session-state.js';
import { workerDb } from './worker-db.js';
import type { Wait } from '../../src/index.js';

const waitOf = (sessionId: string, id: string): Wait => ({
  id,
  sessionId,
  runId: 'run_1',
  kind: 'approval',
  createdAt: new Date().toISOString(),
  fingerprint: 'f'.repeat(64),
  status: 'pending',
});

// SPEC 15.5: the lease sweep resumes a run whose owner died. A killed worker's job stays
// `active` (for expireInSeconds) and would hold the session's other jobs back: the sweep
// cancels it, then queues the resume, once.

const url = databaseUrl();

describe.skipIf(!url)('the lease sweep', () => {
  const db = workerDb(url ?? '', 'sweep');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  const agent = createAgent({ sessionStore: store });
  const boss = new PgBoss({ connectionString: url ?? '', schema: db.bossSchema, schedule: false });
  let wb: WorkerBoss;
  beforeAll(async () => {
    boss.on('error', () => undefined);
    await boss.start();
    wb = await openWorkerBoss(resolveWorkerOptions({ agent, boss, schema: db.bossSchema }));
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, wait: true });
    await agent.close();
    await store.close();
    await db.drop();
  });

  const jobsOf = (sessionId: string) =>
    db.query<{ kind: string; why: string | null; state: string }>(
      `SELECT data->>'kind' AS kind, data->>'why' AS why, state FROM "${db.bossSchema}".job
       WHERE name = 'muster' AND singleton_key = $1 ORDER BY created_on`,
      [sessionId],
    );

  it('cancels the dead worker’s active job and queues one resume, resumes a session decided without a worker; live, completed and waiting sessions are left alone', async () => {
    // a run that died: running, its lease expired; its job was fetched (active) by the dead worker
    const dead = await store.acquire('dead', 'run_dead', 60_000);
    await store.create(sessionState('dead'), { lease: dead! });
    await boss.send('muster', { kind: 'start', sessionId: 'dead' }, { singletonKey: 'dead' });
    expect(await boss.fetch('muster', { batchSize: 10 })).toHaveLength(1);
    // a run going on elsewhere, a completed one, a parked one
    const live = await store.acquire('live', 'run_live', 60_000);
    await store.create(sessionState('live'), { lease: live! });
    await store.create(sessionState('done', { status: 'completed' }));
    await store.create(sessionState('parked', { status: 'parked' }));
    await store.waits.put(waitOf('parked', 'w1'));
    // a parked session whose wait was decided where no worker was open
    await store.create(sessionState('decided', { status: 'parked' }));
    await store.waits.put(waitOf('decided', 'w1'));
    await store.waits.decide('decided', 'w1', { decision: 'allow' });
    await db.query(
      `UPDATE "${db.schema}".muster_leases SET expires_at = now() - interval '1 second' WHERE session_id = 'dead'`,
    );

    expect(await store.orphans(10)).toEqual(['dead', 'decided']);
    // paged: the next after the given one
    expect(await store.orphans(1)).toEqual(['dead']);
    expect(await store.orphans(1, 'dead')).toEqual(['decided']);
    expect(await sweepOrphans(wb, store)).toBe(2);
    expect(await jobsOf('decided')).toEqual([
      { kind: 'resume', why: 'orphaned', state: 'created' },
    ]);
    expect(await jobsOf('dead')).toEqual([
      { kind: 'start', why: null, state: 'cancelled' },
      { kind: 'resume', why: 'orphaned', state: 'created' },
    ]);
    // a second sweep before the resume ran queues nothing more
    expect(await sweepOrphans(wb, store)).toBe(0);
    expect(await jobsOf('dead')).toHaveLength(2);
    expect(await jobsOf('decided')).toHaveLength(1);
    for (const id of ['live', 'done', 'parked']) expect(await jobsOf(id)).toEqual([]);
    // nothing holds the resume back: the next fetch takes it
    const [next] = await boss.fetch<{ kind: string; sessionId: string }>('muster', {
      batchSize: 1,
    });
    expect(next?.data).toMatchObject({ kind: 'resume', sessionId: 'dead' });
  });
  it('a run that died after taking its lease, before it stored the session: its start job is queued again', async () => {
    await store.acquire('unborn', 'run_unborn', 60_000);
    const request = { input: 'Hello', sessionId: 'unborn' };
    await boss.send(
      'muster',
      { kind: 'start', sessionId: 'unborn', request },
      { singletonKey: 'unborn' },
    );
    const fetched = await boss.fetch<{ sessionId: string }>('muster', { batchSize: 10 });
    expect(fetched.map((j) => j.data.sessionId)).toContain('unborn');
    expect(await store.orphans(10)).not.toContain('unborn');
    await db.query(
      `UPDATE "${db.schema}".muster_leases SET expires_at = now() - interval '1 second' WHERE session_id = 'unborn'`,
    );
    expect(await store.orphans(10)).toContain('unborn');
    expect(await sweepOrphans(wb, store)).toBeGreaterThanOrEqual(1);
    expect(await jobsOf('unborn')).toEqual([
      { kind: 'start', why: null, state: 'cancelled' },
      { kind: 'start', why: null, state: 'created' },
    ]);
    const [again] = await db.query<{ data: unknown }>(
      `SELECT data FROM "${db.bossSchema}".job WHERE singleton_key = 'unborn' AND state = 'created'`,
    );
    expect(again?.data).toEqual({ kind: 'start', sessionId: 'unborn', request });
  });

  it('a resume due later (a parked run’s expires job) does not count as queued: the dead run and the decided session are resumed now', async () => {
    // the first test's dead run ended meanwhile
    await db.query(
      `UPDATE "${db.schema}".muster_sessions SET status = 'completed' WHERE id = 'dead'`,
    );
    // both parked once: each has its delayed `expires` resume, due in a week
    const inAWeek = new Date(Date.now() + 7 * 86_400_000);
    for (const id of ['dead2', 'decided2'])
      await boss.send(
        'muster',
        { kind: 'resume', sessionId: id, why: 'expires' },
        { singletonKey: id, startAfter: inAWeek },
      );
    // then one was resumed, and its worker was killed mid-run
    const lease = await store.acquire('dead2', 'run_dead2', 60_000);
    await store.create(sessionState('dead2'), { lease: lease! });
    await db.query(
      `UPDATE "${db.schema}".muster_leases SET expires_at = now() - interval '1 second' WHERE session_id = 'dead2'`,
    );
    // the other’s wait was decided where no worker was open
    await store.create(sessionState('decided2', { status: 'parked' }));
    await store.waits.put(waitOf('decided2', 'w1'));
    await store.waits.decide('decided2', 'w1', { decision: 'allow' });

    expect(await sweepOrphans(wb, store)).toBe(2);
    for (const id of ['dead2', 'decided2'])
      expect(await jobsOf(id)).toEqual([
        { kind: 'resume', why: 'expires', state: 'created' },
        { kind: 'resume', why: 'orphaned', state: 'created' },
      ]);
    // the resume now due counts: a second sweep queues nothing more
    expect(await sweepOrphans(wb, store)).toBe(0);
  });

  it('orphans that stay orphans while their resume waits in the queue do not hide a newer one', async () => {
    // 150 dead runs, each with its resume queued and due (no worker has taken them yet)
    const stuck = Array.from({ length: 150 }, (_, i) => `stuck-${String(i).padStart(3, '0')}`);
    for (const id of stuck) await store.create(sessionState(id));
    await boss.insert(
      stuck.map((id) => ({
        name: 'muster',
        data: { kind: 'resume', sessionId: id, why: 'orphaned' },
        singletonKey: id,
      })),
    );
    // then one more run dies, with nothing queued
    await store.create(sessionState('fresh'));
    expect(await sweepOrphans(wb, store)).toBe(1);
    expect(await jobsOf('fresh')).toEqual([{ kind: 'resume', why: 'orphaned', state: 'created' }]);
  });
});
