import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { Wait } from '../../src/index.js';
import type { DispatchableStore } from '../../src/session/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { sweepOrphans } from '../../src/worker/lease-sweep.js';
import { runSessionJob } from '../../src/worker/session-jobs.js';
import { fetchSessionJobs } from '../../src/worker/session-fetch.js';
import { openWorkerBoss } from '../../src/worker/worker-boss.js';
import type { WorkerBoss } from '../../src/worker/worker-boss.js';
import { resolveWorkerOptions } from '../../src/worker/worker-options.js';
import { databaseUrl } from '../support/database.js';
import { sessionState } from '../support/session-state.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: a worker killed between its fetch (the job `active`) and its run's lease leaves a
// job with no lease and often no session: no orphan, and on the singleton queue it holds the
// session back until pg-boss expires it (15 minutes). The sweep cancels a session job active
// for longer than a grace (twice the agent's lease TTL) whose session no live lease holds, and
// queues its work again; a job younger than that (a live worker between its fetch and its
// lease) or whose session is leased is left alone.

const url = databaseUrl();

const taskWait = (sessionId: string): Wait => ({
  id: 'w1',
  sessionId,
  runId: 'run_1',
  kind: 'task',
  callId: 'call_1',
  server: 't',
  createdAt: new Date().toISOString(),
  fingerprint: 'f'.repeat(64),
  status: 'pending',
  task: {
    taskId: 'task-1',
    status: 'working',
    createdAt: new Date().toISOString(),
    ttlMs: null,
    acceptedAt: new Date().toISOString(),
  },
});

describe.skipIf(!url)('session jobs a worker left active before taking the lease', () => {
  const db = workerDb(url ?? '', 'stale');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  const boss = new PgBoss({ connectionString: url ?? '', schema: db.bossSchema, schedule: false });
  const agent = createAgent({ sessionStore: store });
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
       WHERE singleton_key = $1 ORDER BY created_on`,
      [sessionId],
    );
  /** Queues a job of `sessionId` and activates it as a worker's fetch does; returns its id. */
  const fetched = async (data: { kind: string; sessionId: string; [k: string]: unknown }) => {
    await boss.send('muster', data, { singletonKey: data.sessionId });
    const [job] = await fetchSessionJobs(wb, 1);
    expect(job?.data).toMatchObject({ sessionId: data.sessionId });
    return job!.id;
  };
  const age = (id: string) =>
    db.query(
      `UPDATE "${db.bossSchema}".job SET started_on = now() - interval '5 minutes' WHERE id = $1`,
      [id],
    );

  it('cancels a job active past the grace with no lease and queues its work again; a younger job, or one whose session is leased, is left alone', async () => {
    // a start job fetched by a worker that died at once: no lease, no session
    const request = { input: 'Hello', sessionId: 'unleased' };
    const unleased = await fetched({ kind: 'start', sessionId: 'unleased', request });
    // a run going on elsewhere: its lease is live
    const lease = await store.acquire('leased', 'run_live', 60_000);
    await store.create(sessionState('leased'), { lease: lease! });
    const leased = await fetched({ kind: 'resume', sessionId: 'leased', why: 'decided' });
    // a parked run whose task-poll resume was fetched by a worker that died
    await store.create(sessionState('polled', { status: 'parked' }));
    await store.waits.put(taskWait('polled'));
    const polled = await fetched({ kind: 'resume', sessionId: 'polled', why: 'task-poll' });
    // a run that ended; its worker died before completing the job
    await store.create(sessionState('ended', { status: 'completed' }));
    const ended = await fetched({ kind: 'resume', sessionId: 'ended', why: 'decided' });
    expect(await store.orphans(10)).toEqual([]);

    // within the grace: a live worker may be about to take the lease
    expect(await sweepOrphans(wb, store, 60)).toBe(0);
    for (const id of ['unleased', 'leased', 'polled', 'ended'])
      expect((await jobsOf(id)).map((j) => j.state)).toEqual(['active']);

    for (const id of [unleased, leased, polled, ended]) await age(id);
    expect(await sweepOrphans(wb, store, 60)).toBe(2);
    expect(await jobsOf('unleased')).toEqual([
      { kind: 'start', why: null, state: 'cancelled' },
      { kind: 'start', why: null, state: 'created' },
    ]);
    const [again] = await db.query<{ data: unknown }>(
      `SELECT data FROM "${db.bossSchema}".job WHERE singleton_key = 'unleased' AND state = 'created'`,
    );
    expect(again?.data).toEqual({ kind: 'start', sessionId: 'unleased', request });
    expect(await jobsOf('polled')).toEqual([
      { kind: 'resume', why: 'task-poll', state: 'cancelled' },
      { kind: 'resume', why: 'orphaned', state: 'created' },
    ]);
    expect(await jobsOf('leased')).toEqual([{ kind: 'resume', why: 'decided', state: 'active' }]);
    // nothing to continue: the job is cancelled (it held the session back), nothing queued
    expect(await jobsOf('ended')).toEqual([{ kind: 'resume', why: 'decided', state: 'cancelled' }]);
    // a second sweep queues nothing more
    expect(await sweepOrphans(wb, store, 60)).toBe(0);
  });

  it('queues the work again before it cancels the dead job: a send that fails leaves the job active for the next sweep, never cancelled with nothing queued', async () => {
    const request = { input: 'Hello', sessionId: 'unsent' };
    const dead = await boss.send(
      'muster',
      { kind: 'start', sessionId: 'unsent', request },
      {
        singletonKey: 'unsent',
      },
    );
    // fetched by a worker that died at once (activated here: a fetch would take whichever job
    // the tests before left queued first)
    await db.query(`UPDATE "${db.bossSchema}".job SET state = 'active' WHERE id = $1`, [dead]);
    await age(dead!);
    // a fault injected into the real pg-boss: its next send fails (a dropped connection, or
    // the sweeping worker killed at that moment)
    const send = vi.spyOn(boss, 'send').mockRejectedValueOnce(new Error('connection lost'));
    try {
      await expect(sweepOrphans(wb, store, 60)).rejects.toThrow('connection lost');
    } finally {
      send.mockRestore();
    }
    expect(await jobsOf('unsent')).toEqual([{ kind: 'start', why: null, state: 'active' }]);
    expect(await sweepOrphans(wb, store, 60)).toBe(1);
    expect(await jobsOf('unsent')).toEqual([
      { kind: 'start', why: null, state: 'cancelled' },
      { kind: 'start', why: null, state: 'created' },
    ]);
  });

  it('a slow worker whose start job was queued again: taking the lease after the other job’s run completed the session, its run is a no-op', async () => {
    let requests = 0;
    const runner = createAgent({
      model: scriptedModel(
        Array.from({ length: 4 }, () => () => {
          requests++;
          return { text: 'hello there' };
        }),
      ),
      sessionStore: store,
    });
    const data = {
      kind: 'start',
      sessionId: 'slow',
      request: { input: 'Hello', sessionId: 'slow' },
    } as const;
    // the slow worker read the session (none yet), then stalled before its run's lease
    let resumeSlow!: () => void;
    const stalled = new Promise<void>((resolve) => (resumeSlow = resolve));
    let read!: () => void;
    const hasRead = new Promise<void>((resolve) => (read = resolve));
    const slowStore: Pick<DispatchableStore, 'dispatchState'> = {
      dispatchState: async (id) => {
        const state = await store.dispatchState(id);
        read();
        await stalled;
        return state;
      },
    };
    try {
      const slow = runSessionJob(runner, slowStore, data, new AbortController().signal);
      await hasRead;
      // the job the sweep queued again runs on another worker and completes the session
      expect(await runSessionJob(runner, store, data, new AbortController().signal)).toEqual({
        kind: 'completed',
      });
      resumeSlow();
      expect(await slow).toEqual({ kind: 'noop' });
      expect(requests).toBe(1);
      const state = await store.get('slow');
      expect(state?.status).toBe('completed');
      expect(state?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    } finally {
      await runner.close();
    }
  });

  it('a worker killed between fetch and lease: another worker’s sweep takes the session over and its run happens once', async () => {
    let requests = 0;
    // the surviving worker's process: a store of its own
    const runnerStore = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    const runner = createAgent({
      model: scriptedModel(
        Array.from({ length: 5 }, () => () => {
          requests++;
          return { text: 'hello there' };
        }),
      ),
      sessionStore: runnerStore,
      // the grace is twice this: 2 s
      sessionLeaseMs: 1000,
    });
    // a queue of its own: the jobs the first test left are not this one's
    const queue = 'taken';
    const producer = createWorker({ agent, boss, schema: db.bossSchema, queue });
    const worker = createWorker({
      agent: runner,
      connectionString: db.url,
      schema: db.bossSchema,
      queue,
      sweepSeconds: 1,
    });
    try {
      const { sessionId } = await producer.enqueue({ input: 'Hello', sessionId: 'taken-over' });
      // the dead worker: its fetch activated the job, and it never took the lease
      const dead = await openWorkerBoss(
        resolveWorkerOptions({ agent, boss, schema: db.bossSchema, queue }),
      );
      const [job] = await fetchSessionJobs(dead, 1);
      expect(job?.data).toMatchObject({ kind: 'start', sessionId });
      await worker.start();
      await vi.waitFor(async () => expect((await store.get(sessionId))?.status).toBe('completed'), {
        timeout: 30_000,
        interval: 100,
      });
      expect(requests).toBe(1);
      expect((await store.get(sessionId))?.messages.map((m) => m.role)).toEqual([
        'user',
        'assistant',
      ]);
      expect(await jobsOf(sessionId)).toEqual([
        { kind: 'start', why: null, state: 'cancelled' },
        { kind: 'start', why: null, state: 'completed' },
      ]);
    } finally {
      await worker.stop();
      await producer.stop();
      await runner.close();
      await runnerStore.close();
    }
  });
});
