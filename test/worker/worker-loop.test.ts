import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/index.js';
import { JobLoop } from '../../src/worker/job-loop.js';
import type { JobLoopParts } from '../../src/worker/job-loop.js';
import type { SessionJobOutcome } from '../../src/worker/session-jobs.js';
import { openWorkerBoss } from '../../src/worker/worker-boss.js';
import type { WorkerBoss } from '../../src/worker/worker-boss.js';
import { resolveWorkerOptions } from '../../src/worker/worker-options.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: the worker's own fetch/complete loop on a real pg-boss. One session's active job
// holds back only that session's jobs; a run the loop stops has its work queued again before
// it is stopped; a failure after a run ended is reported, never thrown at the process.

const url = databaseUrl();

interface Data {
  readonly kind: string;
  readonly sessionId: string;
  readonly why?: string;
}

describe.skipIf(!url)('the job loop', () => {
  const db = workerDb(url ?? '', 'loop');
  const agent = createAgent();
  const boss = new PgBoss({ connectionString: url ?? '', schema: db.bossSchema, schedule: false });
  beforeAll(async () => {
    boss.on('error', () => undefined);
    await boss.start();
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, wait: true });
    await agent.close();
    await db.drop();
  });

  const queueOf = (queue: string) =>
    openWorkerBoss(resolveWorkerOptions({ agent, boss, schema: db.bossSchema, queue }));
  const jobsOf = (queue: string, sessionId: string) =>
    db.query<{ kind: string; why: string | null; state: string }>(
      `SELECT data->>'kind' AS kind, data->>'why' AS why, state FROM "${db.bossSchema}".job
       WHERE name = $1 AND singleton_key = $2 ORDER BY created_on`,
      [queue, sessionId],
    );
  const loopOf = (
    wb: WorkerBoss,
    session: (data: Data, signal: AbortSignal) => Promise<SessionJobOutcome>,
    parts: Partial<JobLoopParts> = {},
  ) =>
    new JobLoop({
      boss: wb,
      concurrency: parts.concurrency ?? 4,
      sweepSeconds: 30,
      session: (data, signal) => session(data as Data, signal),
      sweep: () => Promise.resolve(0),
      resumeLater: async (sessionId, why) => {
        await boss.send(wb.queue, { kind: 'resume', sessionId, why }, { singletonKey: sessionId });
      },
      requeue: async (data) => {
        const { sessionId } = data as Data;
        await boss.send(
          wb.queue,
          { kind: 'resume', sessionId, why: 'interrupted' },
          { singletonKey: sessionId },
        );
      },
      report: () => undefined,
      ...parts,
    });

  it('a session whose job is active holds back its own queued job only: the other session’s job is taken', async () => {
    const wb = await queueOf('stall');
    await boss.send('stall', { kind: 'start', sessionId: 'k1' }, { singletonKey: 'k1' });
    // another worker runs k1's job
    const [a] = await boss.fetch('stall', { batchSize: 1 });
    expect(a).toBeDefined();
    await boss.send(
      'stall',
      { kind: 'resume', sessionId: 'k1', why: 'decided' },
      { singletonKey: 'k1' },
    );
    await boss.send('stall', { kind: 'start', sessionId: 'k2' }, { singletonKey: 'k2' });
    const seen: string[] = [];
    const loop = loopOf(wb, (data) => {
      seen.push(`${data.kind} ${data.sessionId}`);
      return Promise.resolve({ kind: 'completed' });
    });
    loop.start();
    try {
      await vi.waitFor(() => expect(seen).toEqual(['start k2']), { timeout: 10_000 });
      // k1's resume waits for k1's active job
      expect((await jobsOf('stall', 'k1')).map((j) => j.state)).toEqual(['active', 'created']);
      await boss.complete('stall', a!.id);
      await vi.waitFor(() => expect(seen).toEqual(['start k2', 'resume k1']), {
        timeout: 10_000,
      });
    } finally {
      await loop.drain(5000);
    }
    expect((await jobsOf('stall', 'k2')).map((j) => j.state)).toEqual(['completed']);
  });

  it('a run it stops has its work queued again before it is stopped', async () => {
    const wb = await queueOf('stop');
    await boss.send(
      'stop',
      { kind: 'resume', sessionId: 'k5', why: 'decided' },
      { singletonKey: 'k5' },
    );
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let queuedAtAbort: unknown;
    const loop = loopOf(wb, async (_data, signal) => {
      started();
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      // where a run stopped now writes its failure: a crash from here on must lose nothing
      queuedAtAbort = await jobsOf('stop', 'k5');
      return { kind: 'interrupted' };
    });
    loop.start();
    await running;
    await loop.drain(0);
    expect(queuedAtAbort).toEqual([
      { kind: 'resume', why: 'decided', state: 'active' },
      { kind: 'resume', why: 'interrupted', state: 'created' },
    ]);
    // queued once, the stopped job completed
    expect(await jobsOf('stop', 'k5')).toEqual([
      { kind: 'resume', why: 'decided', state: 'completed' },
      { kind: 'resume', why: 'interrupted', state: 'created' },
    ]);
  });

  it('a resume it cannot queue after a run parked is reported; the job completes and drain() resolves', async () => {
    const wb = await queueOf('fails');
    await boss.send('fails', { kind: 'start', sessionId: 'k4' }, { singletonKey: 'k4' });
    const reported: unknown[] = [];
    const loop = loopOf(
      wb,
      () => Promise.resolve({ kind: 'parked', expiresAt: Date.now() + 60_000 }),
      {
        resumeLater: () => Promise.reject(new Error('the queue is down')),
        report: (err) => reported.push(err),
      },
    );
    loop.start();
    try {
      await vi.waitFor(
        async () =>
          expect((await jobsOf('fails', 'k4')).map((j) => j.state)).toEqual(['completed']),
        { timeout: 10_000 },
      );
    } finally {
      await expect(loop.drain(5000)).resolves.toBeUndefined();
    }
    expect(reported).toEqual([new Error('the queue is down')]);
  });

  it("an idle loop that queued a task poll's delayed resume fetches as it falls due: its back-off is capped by the due time", async () => {
    const wb = await queueOf('due');
    await boss.send('due', { kind: 'start', sessionId: 'k10' }, { singletonKey: 'k10' });
    // a task polled every 300 ms: the run parks with its next poll due then (well ahead here,
    // so nothing below depends on how fast the test runs)
    const pollAt = Date.now() + 60_000;
    const queued: Date[] = [];
    const loop = loopOf(
      wb,
      () => Promise.resolve({ kind: 'parked', expiresAt: undefined, nextPollAt: pollAt }),
      {
        resumeLater: async (sessionId, why, startAfter) => {
          await boss.send(
            wb.queue,
            { kind: 'resume', sessionId, why },
            { singletonKey: sessionId, startAfter },
          );
          queued.push(startAfter);
        },
      },
    );
    loop.start();
    try {
      await vi.waitFor(
        async () =>
          expect((await jobsOf('due', 'k10')).map((j) => j.state)).toEqual([
            'completed',
            'created',
          ]),
        { timeout: 10_000 },
      );
      expect(queued.map((d) => d.getTime())).toEqual([pollAt]);
      // 300 ms, 50 ms before the poll falls due the loop waits no longer than that (its own
      // back-off is at least 100 ms and grows to 2 s), and once due it fetches at once
      expect(loop.nextFetchDelay(pollAt - 300)).toBeLessThanOrEqual(300);
      expect(loop.nextFetchDelay(pollAt - 50)).toBe(50);
      expect(loop.nextFetchDelay(pollAt)).toBe(0);
    } finally {
      await loop.drain(5000);
    }
  });

  it('a job whose run ended frees its slot while its completion is written, and is not handed back by a drain', async () => {
    const wb = await queueOf('slot');
    await boss.send('slot', { kind: 'start', sessionId: 'k8' }, { singletonKey: 'k8' });
    await boss.send('slot', { kind: 'start', sessionId: 'k9' }, { singletonKey: 'k9' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // pg-boss with every `complete` held until the test releases it
    const holding = new Proxy(boss, {
      get: (target, key) => {
        if (key === 'complete')
          return async (...args: Parameters<PgBoss['complete']>) => {
            await held;
            return target.complete(...args);
          };
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const seen: string[] = [];
    const loop = loopOf(
      { ...wb, boss: holding },
      (data) => {
        seen.push(data.sessionId);
        return Promise.resolve({ kind: 'completed' });
      },
      { concurrency: 1 },
    );
    loop.start();
    let draining: Promise<void> | undefined;
    try {
      // one slot: k9 runs while k8's completion is still held
      await vi.waitFor(() => expect(seen).toEqual(['k8', 'k9']), { timeout: 10_000 });
      expect((await jobsOf('slot', 'k8')).map((j) => j.state)).toEqual(['active']);
      // drained at once: both runs ended, so nothing is queued again
      draining = loop.drain(0);
    } finally {
      release();
      await (draining ?? loop.drain(5000));
    }
    for (const k of ['k8', 'k9'])
      expect(await jobsOf('slot', k)).toEqual([{ kind: 'start', why: null, state: 'completed' }]);
  });

  it('a sweep falls due while every slot is busy: it still runs', async () => {
    const wb = await queueOf('busy');
    await boss.send('busy', { kind: 'start', sessionId: 'k7' }, { singletonKey: 'k7' });
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let swept = 0;
    const loop = loopOf(
      wb,
      async () => {
        started();
        await held;
        return { kind: 'completed' };
      },
      { concurrency: 1, sweep: () => Promise.resolve(++swept) },
    );
    loop.start();
    try {
      await running;
      // the one slot is taken; then a sweep falls due
      await boss.send(wb.sweepQueue, {}, { singletonKey: 'sweep' });
      await vi.waitFor(() => expect(swept).toBe(1), { timeout: 10_000, interval: 50 });
    } finally {
      release();
      await loop.drain(5000);
    }
  });

  it('a sweep job left active by a worker that died mid-sweep is cancelled: the next sweep runs', async () => {
    const wb = await queueOf('deadsweep');
    // a worker took a sweep job and died: it stays active (pg-boss expires it only at its
    // maintenance, every 120 s by default)
    await boss.send(wb.sweepQueue, {}, { singletonKey: 'sweep' });
    const [dead] = await boss.fetch(wb.sweepQueue, { batchSize: 1 });
    expect(dead).toBeDefined();
    await db.query(
      `UPDATE "${db.bossSchema}".job SET started_on = now() - interval '1 hour' WHERE id = $1`,
      [dead!.id],
    );
    // the next one is queued behind it (stately: one queued, one active)
    await boss.send(wb.sweepQueue, {}, { singletonKey: 'sweep' });
    let swept = 0;
    const loop = loopOf(wb, () => Promise.resolve({ kind: 'completed' }), {
      sweepSeconds: 1,
      sweep: () => Promise.resolve(++swept),
    });
    loop.start();
    try {
      await vi.waitFor(() => expect(swept).toBe(1), { timeout: 15_000, interval: 50 });
    } finally {
      await loop.drain(5000);
    }
    const [state] = await db.query<{ state: string }>(
      `SELECT state FROM "${db.bossSchema}".job WHERE id = $1`,
      [dead!.id],
    );
    expect(state?.state).toBe('cancelled');
  });

  it('fetches that keep failing are reported', async () => {
    const wb = await queueOf('failing');
    const reported: unknown[] = [];
    // every fetch fails: its job table is looked for in a schema that does not exist
    const reporting = loopOf(
      { ...wb, quotedSchema: '"no_such_schema"' },
      () => Promise.resolve({ kind: 'completed' }),
      { concurrency: 1, report: (err) => reported.push(err) },
    );
    reporting.start();
    try {
      await vi.waitFor(() => expect(reported).toHaveLength(1), { timeout: 10_000, interval: 50 });
      expect(String(reported[0])).toMatch(/no_such_schema/);
    } finally {
      await reporting.drain(1000);
    }
  });
});
