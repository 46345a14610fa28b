import { afterAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.4 and 15.5: `enqueue` takes the principal a run acts for; the worker's run stores it
// with the session, and a resume of that session acts for it again.

const url = databaseUrl();

describe.skipIf(!url)('a worker run acts for the principal it was enqueued with', () => {
  const db = workerDb(url ?? '', 'principal');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  const agent = createAgent({
    model: scriptedModel([{ text: 'done for alice' }]),
    sessionStore: store,
  });
  const worker = createWorker({
    agent,
    connectionString: url ?? '',
    schema: db.bossSchema,
    concurrency: 1,
  });
  afterAll(async () => {
    await worker.stop();
    await agent.close();
    await store.close();
    await db.drop();
  });

  it('stores the principal with the session, and refuses an invalid one with nothing queued', async () => {
    await worker.start();
    const { sessionId } = await worker.enqueue({ input: 'go', principal: 'alice@example.com' });
    await expect
      .poll(async () => (await store.get(sessionId))?.status, { timeout: 30_000, interval: 50 })
      .toBe('completed');
    const state = await store.get(sessionId);
    expect(state?.principal).toBe('alice@example.com');
    expect(state?.finalContent).toBe('done for alice');

    const before = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${db.bossSchema}".job WHERE name = 'muster'`,
    );
    for (const principal of ['', 'a\u0000b', 'x'.repeat(257)]) {
      await expect(worker.enqueue({ input: 'go', principal })).rejects.toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    }
    const after = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM "${db.bossSchema}".job WHERE name = 'muster'`,
    );
    expect(after[0]!.n).toBe(before[0]!.n);
  }, 60_000);
});
