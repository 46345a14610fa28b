import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { ModelRequest, ToolResultMessage, Wait } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { runSessionJob } from '../../src/worker/session-jobs.js';
import { databaseUrl } from '../support/database.js';
import { sessionState } from '../support/session-state.js';
import { workerDb } from './worker-db.js';

// SPEC 15.1 and 15.5: a root run parked on a link to a delegated (asTool) run's wait. The
// decision lands on the delegated run's wait (deciding the link passes it on), and the resume
// it queues is the ROOT's: the root's resume continues the delegated run through its link. The
// delegated session is never resumed by itself with the worker's (the root's) agent.

const url = databaseUrl();

const lastResult = (req: ModelRequest) =>
  req.messages.filter((m): m is ToolResultMessage => m.role === 'tool').at(-1)?.content;

describe.skipIf(!url)('a decision on a delegated run’s wait under a worker', () => {
  const db = workerDb(url ?? '', 'delegated');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  const runs: string[] = [];
  // stateless scripted models: each turn answers from the request it gets
  const helper = createAgent({
    model: scriptedModel(
      Array.from({ length: 20 }, () => (req: ModelRequest) => {
        const result = lastResult(req);
        return result === undefined
          ? { toolCalls: [{ name: 'pay', arguments: { n: 7 }, id: 'call_pay' }] }
          : { text: `Done: ${result}` };
      }),
    ),
    tools: [
      tool({
        name: 'pay',
        description: 'Pays.',
        input: z.object({ n: z.number() }),
        execute: ({ n }, ctx) => {
          runs.push(`pay:${n}`);
          return `paid ${n} (${ctx.sessionId})`;
        },
      }),
    ],
    sessionStore: store,
    policy: { park: true },
  });
  const root = createAgent({
    model: scriptedModel(
      Array.from({ length: 20 }, () => (req: ModelRequest) => {
        const result = lastResult(req);
        return result === undefined
          ? { toolCalls: [{ name: 'payer', arguments: { prompt: 'Pay 7.' }, id: 'call_payer' }] }
          : { text: `Root: ${result}` };
      }),
    ),
    tools: [helper.asTool({ name: 'payer', description: 'Pays.' })],
    sessionStore: store,
    policy: { allow: ['payer'] },
  });
  const worker = createWorker({
    agent: root,
    connectionString: url ?? '',
    schema: db.bossSchema,
    sweepSeconds: 3600,
  });
  const decidedJobs = async () =>
    (
      await db.query<{ key: string }>(
        `SELECT singleton_key AS key FROM "${db.bossSchema}".job
         WHERE name = 'muster' AND data->>'why' = 'decided' ORDER BY singleton_key`,
      )
    ).map((r) => r.key);
  afterAll(async () => {
    await worker.stop();
    await root.close();
    await helper.close();
    await store.close();
    await db.drop();
  });

  it.each([
    ['the root’s link', 'link'],
    ['the delegated run’s own wait', 'child'],
  ] as const)(
    'decided through %s: one resume of the root is queued, the root completes with the delegated answer',
    async (_, through) => {
      await worker.start();
      const sessionId = `root-${through}`;
      runs.length = 0;
      const before = await decidedJobs();
      await worker.enqueue({ input: 'Please pay.', sessionId });
      let link: { id: string; child?: { sessionId: string; waitId: string } } | undefined;
      await vi.waitFor(
        async () => {
          const { waits } = await root.sessions.waits({ sessionId });
          expect(waits).toMatchObject([{ kind: 'approval', toolName: 'pay', status: 'pending' }]);
          link = waits[0];
        },
        { timeout: 30_000, interval: 50 },
      );
      const child = link!.child!;
      expect((await store.get(child.sessionId))?.status).toBe('parked');

      if (through === 'link') await root.decide(sessionId, link!.id, { decision: 'allow' });
      else await helper.decide(child.sessionId, child.waitId, { decision: 'allow' });

      // exactly one resume queued by the decision: the root's, none of the delegated session
      expect((await decidedJobs()).filter((k) => !before.includes(k))).toEqual([sessionId]);
      await vi.waitFor(async () => expect((await store.get(sessionId))?.status).toBe('completed'), {
        timeout: 15_000,
        interval: 50,
      });
      expect((await store.get(sessionId))?.finalContent).toBe(
        `Root: Done: paid 7 (${child.sessionId})`,
      );
      // the delegated session was continued by its own agent, through the root's link
      const delegated = await store.get(child.sessionId);
      expect(delegated?.status).toBe('completed');
      expect(delegated?.finalContent).toBe(`Done: paid 7 (${child.sessionId})`);
      expect(runs).toEqual(['pay:7']);
      expect((await store.waits.list({ sessionId })).waits).toEqual([]);
    },
    60_000,
  );

  it('a resume job of a delegated session resumes its root instead', async () => {
    await worker.start();
    const sessionId = 'root-redirect';
    runs.length = 0;
    await worker.enqueue({ input: 'Please pay.', sessionId });
    let child: { sessionId: string; waitId: string } | undefined;
    await vi.waitFor(
      async () => {
        const { waits } = await root.sessions.waits({ sessionId });
        expect(waits).toHaveLength(1);
        child = waits[0]!.child;
      },
      { timeout: 30_000, interval: 50 },
    );
    // decided with no worker hook in the way (a plain store write), then a resume job for the
    // delegated session itself (what the sweep queues for a parked session with none pending)
    const plain = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
    try {
      await plain.waits.decide(child!.sessionId, child!.waitId, { decision: 'allow' });
    } finally {
      await plain.close();
    }
    const outcome = await runSessionJob(
      root,
      store,
      { kind: 'resume', sessionId: child!.sessionId, why: 'orphaned' },
      new AbortController().signal,
    );
    expect(outcome).toEqual({ kind: 'completed' });
    expect((await store.get(sessionId))?.finalContent).toBe(
      `Root: Done: paid 7 (${child!.sessionId})`,
    );
    expect((await store.get(child!.sessionId))?.finalContent).toBe(
      `Done: paid 7 (${child!.sessionId})`,
    );
    expect(runs).toEqual(['pay:7']);
  }, 60_000);
});

describe.skipIf(!url)('a decision’s hook, for waits that root links stand for', () => {
  const db = workerDb(url ?? '', 'links');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });
  const waitOf = (sessionId: string, id: string, child?: Wait['child']): Wait => ({
    id,
    sessionId,
    runId: 'run_1',
    kind: 'approval',
    createdAt: new Date().toISOString(),
    fingerprint: 'f'.repeat(64),
    status: 'pending',
    ...(child ? { child } : {}),
  });

  it('resolves the root through nested links and counts its waits as they stand', async () => {
    for (const id of ['r', 'c', 'g']) await store.create(sessionState(id, { status: 'parked' }));
    // r: its own wait a, links l1 and l2 to c's w1 and w2, link l3 to c's link c1 to g's g1
    await store.waits.put(waitOf('r', 'a'));
    await store.waits.put(waitOf('r', 'l1', { sessionId: 'c', waitId: 'w1' }));
    await store.waits.put(waitOf('r', 'l2', { sessionId: 'c', waitId: 'w2' }));
    await store.waits.put(waitOf('r', 'l3', { sessionId: 'c', waitId: 'c1' }));
    await store.waits.put(waitOf('c', 'w1'));
    await store.waits.put(waitOf('c', 'w2'));
    await store.waits.put(waitOf('c', 'c1', { sessionId: 'g', waitId: 'g1' }));
    await store.waits.put(waitOf('g', 'g1'));
    expect(await store.dispatchState('g')).toMatchObject({ root: 'r' });
    expect(await store.dispatchState('c')).toMatchObject({ root: 'r' });
    expect(await store.dispatchState('r')).not.toHaveProperty('root');

    const seen: string[] = [];
    const unhook = store.onWaitDecided(async (d) => {
      seen.push(`${d.sessionId}/${d.wait.id} -> ${d.resumeSessionId}: ${d.pending}`);
    });
    try {
      await store.waits.decide('c', 'w1', { decision: 'allow' });
      await store.waits.decide('r', 'a', { decision: 'allow' });
      await store.waits.decide('g', 'g1', { decision: 'allow' });
      await store.waits.decide('c', 'w2', { decision: 'allow' });
    } finally {
      unhook();
    }
    expect(seen).toEqual([
      'c/w1 -> r: 3', // a, l2, l3 (l1 stands for the decided w1)
      'r/a -> r: 2', // l2, l3 (l1's wait is decided)
      'g/g1 -> r: 1', // l2 (l3 stands, through c1, for the decided g1)
      'c/w2 -> r: 0',
    ]);
  });
});
