import { afterAll, describe, expect, it, vi } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.5: a run stopped before it opened its session wrote nothing; its start job must be
// queued again (a resume would find no session and do nothing), so the next worker runs it.

const url = databaseUrl();

describe.skipIf(!url)('a start job stopped before its session exists', () => {
  const db = workerDb(url ?? '', 'interrupt');
  afterAll(async () => {
    await db.drop();
  });

  it('is queued again as a start job, and the next worker runs it', async () => {
    const store = new PostgresSessionStore({ connectionString: db.url, schema: db.schema });
    // its tool source never finishes starting (until the agent closes): a run waits for it
    // before it opens its session
    const stuck = createAgent({
      model: scriptedModel([{ text: 'unused' }]),
      toolExecutor: {
        listTools: () => [],
        execute: () => Promise.resolve('unused'),
        initialize: (ctx) =>
          new Promise<void>((_resolve, reject) =>
            ctx?.signal?.addEventListener('abort', () => reject(new Error('closed')), {
              once: true,
            }),
          ),
      },
      sessionStore: store,
    });
    const first = createWorker({ agent: stuck, connectionString: db.url, schema: db.bossSchema });
    const jobs = () =>
      db.query<{ kind: string; state: string; input: string | null }>(
        `SELECT data->>'kind' AS kind, state, data->'request'->>'input' AS input
         FROM "${db.bossSchema}".job WHERE name = 'muster' AND singleton_key = 's-1'
         ORDER BY created_on`,
      );
    try {
      await first.enqueue({ input: 'Say hello.', sessionId: 's-1' });
      await first.start();
      await vi.waitFor(async () => expect((await jobs()).map((j) => j.state)).toEqual(['active']), {
        timeout: 10_000,
        interval: 50,
      });
      await first.stop();
    } finally {
      await stuck.close();
    }
    expect(await store.get('s-1')).toBeUndefined();
    expect(await jobs()).toEqual([
      { kind: 'start', state: 'completed', input: 'Say hello.' },
      { kind: 'start', state: 'created', input: 'Say hello.' },
    ]);

    const agent = createAgent({ model: scriptedModel([{ text: 'hello' }]), sessionStore: store });
    const next = createWorker({ agent, connectionString: db.url, schema: db.bossSchema });
    try {
      await next.start();
      await vi.waitFor(async () => expect((await store.get('s-1'))?.status).toBe('completed'), {
        timeout: 20_000,
        interval: 50,
      });
    } finally {
      await next.stop();
      await agent.close();
      await store.close();
    }
  }, 60_000);
});
