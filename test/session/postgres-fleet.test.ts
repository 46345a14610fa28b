/**
 * The PostgreSQL store's fleet view (SPEC 15.5): where each session stands across processes,
 * read from its leases, its waits and pg-boss's job table (a real pg-boss queue, made by a
 * worker that only enqueues). A live lease is `running` with its holder; a job waiting for a
 * session that no wait holds is `queued` (a start job's session need not exist); a session
 * with pending waits is `parked`, its delayed resume shown as its job. Without a queue, or
 * with one not found, nothing is queued and nothing fails.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from '../worker/worker-db.js';
import { newState } from './store-contract.js';
import { pendingWait } from './wait-contract.js';

const url = databaseUrl();

describe.skipIf(!url)('the fleet of a PostgreSQL store', () => {
  const db = workerDb(url ?? '', 'fleet');
  const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
  const agent = createAgent({ sessionStore: store });
  // enqueues only (never started): its jobs stay queued
  const producer = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
  const jobs = { schema: db.bossSchema, queue: 'muster' };
  afterAll(async () => {
    await producer.stop();
    await agent.close();
    await store.close();
    await db.drop();
  });

  it('lists running (holder), queued (job, input) and parked (pending waits, resume due later) sessions', async () => {
    // running: a lease held by a run, its session stored under it
    const lease = await store.acquire('s-running', 'run_holder', 60_000);
    await store.create(newState('s-running', { status: 'running' }), { lease: lease! });
    // queued: a start job for a session never stored
    const { jobId } = await producer.enqueue({ input: 'Queued work.', sessionId: 's-queued' });
    // parked: a pending approval, and a resume due in a week (its wait's expiry)
    await store.create(newState('s-parked', { status: 'parked' }));
    await store.waits.put(pendingWait('s-parked', 'w1'));
    await db.query(
      `INSERT INTO "${db.bossSchema}".job (name, data, singleton_key, start_after)
       VALUES ('muster', $1, 's-parked', now() + interval '7 days')`,
      [JSON.stringify({ kind: 'resume', sessionId: 's-parked', why: 'expires' })],
    );
    // decided, its resume queued: queued, not parked
    await store.create(newState('s-decided', { status: 'parked' }));
    await store.waits.put(pendingWait('s-decided', 'w2'));
    await store.waits.decide('s-decided', 'w2', { decision: 'allow' });
    await db.query(
      `INSERT INTO "${db.bossSchema}".job (name, data, singleton_key)
       VALUES ('muster', $1, 's-decided')`,
      [JSON.stringify({ kind: 'resume', sessionId: 's-decided', why: 'decided' })],
    );
    // completed: listed nowhere
    await store.create(newState('s-done', { status: 'completed' }));

    const view = await store.fleet({ jobs });
    expect(view.queueFound).toBe(true);
    expect(view.truncated).toBe(false);
    const by = Object.fromEntries(view.sessions.map((s) => [s.sessionId, s]));
    expect(view.sessions.map((s) => [s.sessionId, s.state])).toEqual([
      ['s-running', 'running'],
      ['s-decided', 'queued'],
      ['s-queued', 'queued'],
      ['s-parked', 'parked'],
    ]);
    expect(by['s-running']).toMatchObject({ status: 'running', holder: 'run_holder' });
    expect(Date.parse(by['s-running']!.leaseExpiresAt!)).toBeGreaterThan(Date.now());
    expect(by['s-running']!.job).toBeUndefined();
    expect(by['s-queued']).toEqual({
      sessionId: 's-queued',
      state: 'queued',
      input: 'Queued work.',
      job: expect.objectContaining({ id: jobId, state: 'created', kind: 'start' }),
    });
    expect(by['s-decided']).toMatchObject({
      status: 'parked',
      job: { kind: 'resume', why: 'decided', state: 'created' },
    });
    expect(by['s-parked']).toMatchObject({
      status: 'parked',
      pendingWaits: ['approval'],
      job: { kind: 'resume', why: 'expires' },
    });
    expect(Date.parse(by['s-parked']!.job!.startAfter)).toBeGreaterThan(Date.now() + 86_400_000);

    // one state; a limit that leaves one out says so
    expect((await store.fleet({ jobs, state: 'queued' })).sessions.map((s) => s.sessionId)).toEqual(
      ['s-decided', 's-queued'],
    );
    const cut = await store.fleet({ jobs, state: 'queued', limit: 1 });
    expect(cut.sessions.map((s) => s.sessionId)).toEqual(['s-decided']);
    expect(cut.truncated).toBe(true);

    // the lease released: the session is no longer running (its status says what it was)
    await lease!.release();
    expect((await store.fleet({ jobs })).sessions.some((s) => s.sessionId === 's-running')).toBe(
      false,
    );
  });

  it('a run that died polling a task, its resume queued by the sweep, is queued; a parked task poll stays parked', async () => {
    // the run polled a task (its `task` wait pending, its status `running`) and was killed:
    // its lease ran out, and the sweep queued an `orphaned` resume
    const lease = await store.acquire('s-orphan', 'run_dead', 60_000);
    await store.create(newState('s-orphan', { status: 'running' }), { lease: lease! });
    await store.waits.put(pendingWait('s-orphan', 'w-task', { kind: 'task' }), { lease: lease! });
    await db.query(
      `UPDATE "${db.schema}".muster_leases SET expires_at = now() - interval '1 second'
       WHERE session_id = 's-orphan'`,
    );
    const { jobId } = (
      await db.query<{ jobId: string }>(
        `INSERT INTO "${db.bossSchema}".job (name, data, singleton_key, policy)
         VALUES ('muster', $1, 's-orphan', 'singleton') RETURNING id::text AS "jobId"`,
        [JSON.stringify({ kind: 'resume', sessionId: 's-orphan', why: 'orphaned' })],
      )
    )[0]!;
    // parked on a task, its next poll due later: parked, the poll shown as its job
    await store.create(newState('s-polling', { status: 'parked' }));
    await store.waits.put(pendingWait('s-polling', 'w-task', { kind: 'task' }));
    await db.query(
      `INSERT INTO "${db.bossSchema}".job (name, data, singleton_key, policy, start_after)
       VALUES ('muster', $1, 's-polling', 'singleton', now() + interval '30 seconds')`,
      [JSON.stringify({ kind: 'resume', sessionId: 's-polling', why: 'task-poll' })],
    );

    const by = Object.fromEntries(
      (await store.fleet({ jobs })).sessions.map((s) => [s.sessionId, s]),
    );
    expect(by['s-orphan']).toMatchObject({
      state: 'queued',
      status: 'running',
      job: { id: jobId, kind: 'resume', why: 'orphaned', state: 'created' },
    });
    expect(by['s-polling']).toMatchObject({
      state: 'parked',
      pendingWaits: ['task'],
      job: { kind: 'resume', why: 'task-poll' },
    });
    const queued = await store.fleet({ jobs, state: 'queued' });
    expect(queued.sessions.map((s) => s.sessionId)).toContain('s-orphan');
    expect(queued.sessions.map((s) => s.sessionId)).not.toContain('s-polling');
  });

  it('shows the active job a worker took for a running session', async () => {
    const lease = await store.acquire('s-worked', 'run_worker', 60_000);
    await store.create(newState('s-worked', { status: 'running' }), { lease: lease! });
    // the session's earlier jobs, completed and kept by pg-boss, are not its job
    await db.query(
      `INSERT INTO "${db.bossSchema}".job (name, data, singleton_key, policy, state, completed_on)
       VALUES ('muster', $1, 's-worked', 'singleton', 'completed', now())`,
      [JSON.stringify({ kind: 'start', sessionId: 's-worked' })],
    );
    const { jobId } = (
      await db.query<{ jobId: string }>(
        `INSERT INTO "${db.bossSchema}".job (name, data, singleton_key, policy, state, started_on)
         VALUES ('muster', $1, 's-worked', 'singleton', 'active', now()) RETURNING id::text AS "jobId"`,
        [JSON.stringify({ kind: 'resume', sessionId: 's-worked', why: 'decided' })],
      )
    )[0]!;
    const view = await store.fleet({ jobs, state: 'running' });
    expect(view.sessions.find((s) => s.sessionId === 's-worked')).toMatchObject({
      state: 'running',
      holder: 'run_worker',
      job: { id: jobId, state: 'active', kind: 'resume', why: 'decided' },
    });
    await lease!.release();
  });

  it('without a queue (or one not found) nothing is queued, and nothing fails', async () => {
    const none = await store.fleet();
    expect(none.queueFound).toBe(false);
    expect(none.sessions.filter((s) => s.state === 'queued')).toEqual([]);
    expect(none.sessions.some((s) => s.sessionId === 's-parked')).toBe(true);
    const missing = await store.fleet({ jobs: { schema: 'no_such_schema', queue: 'muster' } });
    expect(missing.queueFound).toBe(false);
    expect(missing.sessions.filter((s) => s.state === 'queued')).toEqual([]);
  });

  it('a bad schema, queue or limit is INVALID_CONFIGURATION', async () => {
    await expect(
      store.fleet({ jobs: { schema: 'Bad"Schema', queue: 'muster' } }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
    await expect(
      store.fleet({ jobs: { schema: 'pgboss', queue: 'no spaces' } }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
    await expect(store.fleet({ limit: 0 })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
  });
});
