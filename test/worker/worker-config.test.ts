import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgent, MemorySessionStore, MusterError } from '../../src/index.js';
import type { SessionStore } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import type { EnqueueRequest, WorkerOptions } from '../../src/worker/index.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: bad input is a typed INVALID_CONFIGURATION, and nothing is queued.

const url = databaseUrl();

/** The code of what `run` throws or rejects with (`undefined` when it succeeds). */
async function codeOf(run: () => unknown): Promise<{ code?: string; message?: string }> {
  try {
    await run();
    return {};
  } catch (err) {
    if (!MusterError.isInstance(err)) throw err;
    return { code: err.code, message: err.message };
  }
}

describe.skipIf(!url)('worker configuration and enqueue input', () => {
  const db = workerDb(url ?? '', 'config');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  const agent = createAgent({ sessionStore: store });
  const boss = new PgBoss({ connectionString: url ?? '', schema: db.bossSchema, schedule: false });
  /** Jobs on a session queue (its sweep queue holds the sweep that start() schedules). */
  const jobs = async (queue: string) =>
    Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*) AS n FROM "${db.bossSchema}".job WHERE name = $1`,
          [queue],
        )
      )[0]!.n,
    );
  beforeAll(async () => {
    boss.on('error', () => undefined);
    await boss.start();
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, wait: true });
    await agent.close();
    await store.close();
    await db.drop();
  });

  it('createWorker refuses concurrency 0, an unknown option, both or neither connection', async () => {
    const base = { agent, boss } as WorkerOptions;
    for (const options of [
      { ...base, concurrency: 0 },
      { ...base, concurrency: 2.5 },
      { ...base, queue: 'no spaces' },
      { ...base, drainMs: -1 },
      { ...base, sweepSeconds: 0 },
      { ...base, sweepSeconds: 0.5 },
      { ...base, concurency: 2 },
      { agent },
      { agent, boss, connectionString: url },
    ]) {
      const got = await codeOf(() => createWorker(options as WorkerOptions));
      expect(got.code, JSON.stringify(Object.keys(options))).toBe('INVALID_CONFIGURATION');
    }
    expect((await codeOf(() => createWorker({ ...base, concurrency: 0 }))).message).toMatch(
      /concurrency: must be a whole number from 1 to 1000, not 0/,
    );
    expect(
      (await codeOf(() => createWorker({ ...base, concurency: 2 } as unknown as WorkerOptions)))
        .message,
    ).toMatch(/did you mean concurrency/);
  });

  it('an agent whose store has no leases, or is not the PostgreSQL store, is refused', async () => {
    const memory = new MemorySessionStore();
    const noLeases: SessionStore = {
      create: (s, o) => memory.create(s, o),
      get: (id) => memory.get(id),
      update: (id, p, o) => memory.update(id, p, o),
      delete: (id) => memory.delete(id),
      readEvents: (id, q) => memory.readEvents(id, q),
      appendEvents: (id, e, o) => memory.appendEvents(id, e, o),
      steer: (id, t) => memory.steer(id, t),
      takeSteering: (id, o, t) => memory.takeSteering(id, o, t),
    } as SessionStore;
    const plain = createAgent({ sessionStore: noLeases });
    const inMemory = createAgent({ sessionStore: memory });
    try {
      const got = await codeOf(() => createWorker({ agent: plain, boss }));
      expect(got).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(got.message).toMatch(/has no leases/);
      const mem = await codeOf(() => createWorker({ agent: inMemory, boss }));
      expect(mem).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(mem.message).toMatch(/PostgresSessionStore/);
    } finally {
      await plain.close();
      await inMemory.close();
    }
  });

  it('enqueue refuses an unknown or invalid field, and nothing is queued', async () => {
    const worker = createWorker({ agent, boss, schema: db.bossSchema });
    try {
      await worker.start();
      for (const request of [
        { input: 'hi', sesionId: 's-1' },
        { input: 42 },
        {},
        { input: 'hi', sessionId: 'has space' },
        { input: 'hi', output: { schema: { type: 'object', check: () => true } } },
        { input: 'hi', limits: 'many' },
      ]) {
        const got = await codeOf(() => worker.enqueue(request as unknown as EnqueueRequest));
        expect(got.code, JSON.stringify(request)).toBe('INVALID_CONFIGURATION');
      }
      expect(
        (await codeOf(() => worker.enqueue({ input: 'hi', sesionId: 's' } as EnqueueRequest)))
          .message,
      ).toMatch(/did you mean sessionId/);
      expect(await jobs('muster')).toBe(0);
    } finally {
      await worker.stop();
    }
  });

  it('a run the agent refuses before it stores anything leaves its reason on the job', async () => {
    const worker = createWorker({ agent, boss, schema: db.bossSchema, queue: 'refused' });
    try {
      await worker.start();
      const { jobId, sessionId } = await worker.enqueue({
        input: 'hi',
        limits: { maxIterations: -1 },
      });
      await vi.waitFor(
        async () => {
          const [job] = await db.query<{ state: string; output: unknown }>(
            `SELECT state, output FROM "${db.bossSchema}".job WHERE id = $1`,
            [jobId],
          );
          expect(job).toEqual({
            state: 'completed',
            output: { outcome: 'failed', code: 'INVALID_CONFIGURATION' },
          });
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(await store.get(sessionId)).toBeUndefined();
    } finally {
      await worker.stop();
    }
  });

  it('a queue that send answers with null (deleted under the worker) is an error, not a lost run', async () => {
    const worker = createWorker({ agent, boss, schema: db.bossSchema, queue: 'gone' });
    try {
      await worker.start();
      await boss.deleteQueue('gone');
      const got = await codeOf(() => worker.enqueue({ input: 'hi', sessionId: 'lost' }));
      expect(got).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(got.message).toMatch(/send answered null/);
      expect(await jobs('gone')).toBe(0);
    } finally {
      await worker.stop();
    }
  });

  it('a pg-boss schema of another version is refused before anything is sent, and never migrated', async () => {
    const other = workerDb(url!, 'version');
    const old = new PgBoss({ connectionString: url!, schema: other.bossSchema, schedule: false });
    old.on('error', () => undefined);
    try {
      await old.start();
      await other.query(`UPDATE "${other.bossSchema}".version SET version = 23`);
      const worker = createWorker({ agent, boss: old, schema: other.bossSchema });
      const got = await codeOf(() => worker.enqueue({ input: 'hi' }));
      expect(got).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(got.message).toMatch(/version 23, but the installed pg-boss needs version 24/);
      await worker.stop();
      // a worker that makes its own boss refuses a newer one (pg-boss cannot migrate down)
      await other.query(`UPDATE "${other.bossSchema}".version SET version = 25`);
      const own = createWorker({ agent, connectionString: url!, schema: other.bossSchema });
      const newer = await codeOf(() => own.start());
      expect(newer).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(newer.message).toMatch(/version 25/);
      await own.stop();
      const version = await other.query<{ version: number }>(
        `SELECT version FROM "${other.bossSchema}".version`,
      );
      expect(version).toEqual([{ version: 25 }]);
      const state = await other.query<{ queues: string; jobs: string }>(
        `SELECT (SELECT count(*) FROM "${other.bossSchema}".queue) AS queues,
                (SELECT count(*) FROM "${other.bossSchema}".job) AS jobs`,
      );
      expect(state).toEqual([{ queues: '0', jobs: '0' }]);
    } finally {
      await old.stop({ graceful: false, wait: true });
      await other.drop();
    }
  });

  it('a store on another database than pg-boss is refused at start, before any hook or job', async () => {
    // the same server, its default database `postgres`: pg-boss's schema is not there
    const elsewhere = new URL(url!);
    elsewhere.pathname = '/postgres';
    const other = workerDb(elsewhere.toString(), 'elsewhere');
    const apart = new PostgresSessionStore({
      connectionString: elsewhere.toString(),
      schema: other.schema,
    });
    const apartAgent = createAgent({ sessionStore: apart });
    try {
      const worker = createWorker({
        agent: apartAgent,
        boss,
        schema: db.bossSchema,
        queue: 'apart',
      });
      const got = await codeOf(() => worker.start());
      expect(got).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(got.message).toMatch(/must use the same PostgreSQL database/);
      await worker.stop();
      // no hook was left on the store
      apart.onWaitDecided(() => Promise.resolve())();
      expect(await jobs('apart')).toBe(0);
    } finally {
      await apartAgent.close();
      await apart.close();
      await other.drop();
    }
  });

  it('a host’s boss with a schema that is not its own is refused before any queue is created', async () => {
    const worker = createWorker({ agent, boss, schema: 'pgboss_not_there', queue: 'stray' });
    const got = await codeOf(() => worker.start());
    expect(got).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect(got.message).toMatch(/not in the pg-boss schema 'pgboss_not_there'/);
    await worker.stop();
    expect(await boss.getQueue('stray')).toBeNull();
  });

  it('stop() while the first enqueue still connects leaves no decision hook behind', async () => {
    const worker = createWorker({ agent, boss, schema: db.bossSchema });
    const enqueued = worker.enqueue({ input: 'hi', sessionId: 'early' });
    await worker.stop();
    await enqueued;
    // a second worker (its hook) can use the store
    store.onWaitDecided(() => Promise.resolve())();
  });

  it('a drained worker refuses start() and says so; enqueue() still works', async () => {
    const worker = createWorker({ agent, boss, schema: db.bossSchema, queue: 'drained' });
    try {
      await worker.start();
      await worker.drain();
      const got = await codeOf(() => worker.start());
      expect(got).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect(got.message).toMatch(/was drained/);
      await worker.enqueue({ input: 'hi', sessionId: 'after-drain' });
      expect(await jobs('drained')).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});
