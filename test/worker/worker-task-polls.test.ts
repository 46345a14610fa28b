import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type {
  Agent,
  ModelRequest,
  PolicyOptions,
  ToolResultMessage,
  Wait,
} from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { createWorker } from '../../src/worker/index.js';
import { startTasksFixture, requestsFor } from '../mcp/tasks/tasks-fixture.js';
import type { TasksFixture } from '../mcp/tasks/tasks-fixture.js';
import { collect, ofType } from '../support/run-helpers.js';
import { databaseUrl } from '../support/database.js';
import { workerDb } from './worker-db.js';

// SPEC 15.3 and 15.5: a run that parks on an MCP task (still working after
// mcp.tasks.parkAfterMs) is resumed by the worker's delayed job at the task's next poll; the
// resumed run polls at once and, the task still working past parkAfterMs (counted from when it
// was accepted), parks again after that one poll; the cycle ends when the task does, and the
// server sees one tools/call. The tasks fixture over stdio, the real PostgreSQL, a real worker.

const url = databaseUrl();

/** `finish` of `ms` with the server's poll interval, then the answer names the result. */
const turns =
  (calls: readonly { name: string; arguments: object }[]) => (request: ModelRequest) => {
    const results = request.messages.filter((m): m is ToolResultMessage => m.role === 'tool');
    if (results.length === 0)
      return { toolCalls: calls.map((c, i) => ({ ...c, id: `call_${i}` })) };
    return { text: `got: ${results.map((r) => r.content).join(' + ')}` };
  };

describe.skipIf(!url)('task polls as the worker’s delayed resume', () => {
  const db = workerDb(url ?? '', 'tpoll');
  const store = new PostgresSessionStore({ connectionString: url ?? '', schema: db.schema });
  let fixture: TasksFixture;
  beforeAll(async () => {
    fixture = await startTasksFixture('stdio');
  });
  afterAll(async () => {
    await store.close();
    await fixture?.stop();
    await db.drop();
  });

  function agentOf(
    calls: readonly { name: string; arguments: object }[],
    policy: PolicyOptions = { allow: ['mcp_connect:*', 'mcp__*'] },
    waits?: { ttlMs: number },
  ): Agent {
    return createAgent({
      ...(waits ? { waits } : {}),
      model: scriptedModel(Array.from({ length: 50 }, () => turns(calls))),
      mcpServers: { t: fixture.config },
      mcp: {
        strictConfig: true,
        tasks: { minPollIntervalMs: 50, maxPollIntervalMs: 400, parkAfterMs: 300 },
      },
      policy,
      sessionStore: store,
    });
  }

  const jobsOf = (sessionId: string) =>
    db.query<{ why: string | null; state: string; outcome: string | null }>(
      `SELECT data->>'why' AS why, state, output->>'outcome' AS outcome FROM "${db.bossSchema}".job
       WHERE name = 'muster' AND singleton_key = $1 ORDER BY created_on`,
      [sessionId],
    );
  const toolCalls = (tool: string) =>
    fixture.log().filter((r) => r.method === 'tools/call' && r.tool === tool).length;

  it('a resume past parkAfterMs polls the task once, at once, and parks again while it works, reporting no unchanged status and no wait again', async () => {
    const agent = agentOf([{ name: 'mcp__t__finish', arguments: { ms: 60_000, pollMs: 50 } }]);
    try {
      const sent = await agent.send('Do the work.', { sessionId: 'once' });
      expect(sent.status).toBe('parked');
      const taskId = sent.waits![0]!.task!.taskId;
      const polls = requestsFor(fixture.log(), 'tasks/get', taskId);
      const { events, error } = await collect(agent.resume('once'));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.parked')[0]!.waits).toMatchObject([
        { kind: 'task', task: { taskId, status: 'working' } },
      ]);
      // one poll, not parkAfterMs more of them
      expect(requestsFor(fixture.log(), 'tasks/get', taskId)).toBe(polls + 1);
      // nothing new to report: the task's status is unchanged, its wait the one announced
      expect(ofType(events, 'tool.task')).toEqual([]);
      expect(ofType(events, 'wait.created')).toEqual([]);
    } finally {
      await agent.close();
    }
  });

  it('a worker resumes a run parked on a task at its next poll until the task ends: the model gets the result, the server saw one tools/call', async () => {
    const agent = agentOf([{ name: 'mcp__t__finish', arguments: { ms: 2_500, pollMs: 200 } }]);
    // the sweep is not what resumes it
    const worker = createWorker({
      agent,
      connectionString: db.url,
      schema: db.bossSchema,
      sweepSeconds: 3600,
    });
    const before = toolCalls('finish');
    try {
      await worker.start();
      await worker.enqueue({ input: 'Do the work.', sessionId: 'polled' });
      await vi.waitFor(async () => expect((await store.get('polled'))?.status).toBe('completed'), {
        timeout: 30_000,
        interval: 100,
      });
      expect((await store.get('polled'))?.finalContent).toBe('got: done');
      expect(toolCalls('finish') - before).toBe(1);
      // pg-boss marks the last poll's job completed once its handler has returned, which is
      // just after the run's last commit (the session's status) landed
      const jobs = await vi.waitFor(
        async () => {
          const all = await jobsOf('polled');
          expect(all.filter((j) => j.why === 'task-poll').map((j) => j.state)).not.toContain(
            'active',
          );
          return all;
        },
        { timeout: 10_000, interval: 50 },
      );
      // the run parked (its start job), then each task poll was a delayed resume job
      expect(jobs[0]).toMatchObject({ why: null, state: 'completed', outcome: 'parked' });
      const polls = jobs.filter((j) => j.why === 'task-poll');
      expect(polls.length).toBeGreaterThanOrEqual(1);
      expect(polls.every((j) => j.state === 'completed')).toBe(true);
      expect(polls.at(-1)!.outcome).toBe('completed');
      // no resume at the waits' expiry was queued on the way: nothing is left in the queue
      expect(jobs.filter((j) => j.why !== 'task-poll' && j.why !== null)).toEqual([]);
      expect((await store.waits.list({ sessionId: 'polled' })).waits).toEqual([]);
    } finally {
      await worker.stop();
      await agent.close();
    }
  });

  it('a task that never ends, polled by a worker: its wait keeps its first expiry across the re-parks, so one last poll past it ends the call TOOL_OUTCOME_UNKNOWN and the session, and no job is left', async () => {
    const agent = agentOf(
      [{ name: 'mcp__t__finish', arguments: { ms: 600_000, pollMs: 100 } }],
      undefined,
      // long enough for a task poll or two to park again before it
      { ttlMs: 4_000 },
    );
    const worker = createWorker({
      agent,
      connectionString: db.url,
      schema: db.bossSchema,
      sweepSeconds: 3600,
    });
    try {
      await worker.start();
      await worker.enqueue({ input: 'Do the work.', sessionId: 'hung' });
      let first: Wait | undefined;
      await vi.waitFor(
        async () => {
          [first] = (await agent.sessions.waits({ sessionId: 'hung' })).waits;
          expect(first?.kind).toBe('task');
        },
        { timeout: 30_000, interval: 50 },
      );
      // parked again by a task poll: the same wait, the same lifetime
      await vi.waitFor(
        async () => {
          const polls = (await jobsOf('hung')).filter((j) => j.why === 'task-poll');
          expect(polls.filter((j) => j.outcome === 'parked').length).toBeGreaterThanOrEqual(1);
        },
        { timeout: 30_000, interval: 50 },
      );
      const [again] = (await agent.sessions.waits({ sessionId: 'hung' })).waits;
      if (again)
        expect(again).toMatchObject({
          id: first!.id,
          createdAt: first!.createdAt,
          expiresAt: first!.expiresAt,
        });
      await vi.waitFor(async () => expect((await store.get('hung'))?.status).toBe('completed'), {
        timeout: 15_000,
        interval: 100,
      });
      expect((await store.get('hung'))?.finalContent).toMatch(
        /^got: Error \[TOOL_OUTCOME_UNKNOWN\].*at its last poll: its wait passed waits\.ttlMs/,
      );
      // given up once: one tasks/cancel, and nothing left in the queue
      expect(requestsFor(fixture.log(), 'tasks/cancel', first!.task!.taskId)).toBe(1);
      const jobs = await jobsOf('hung');
      expect(jobs.filter((j) => j.state !== 'completed')).toEqual([]);
      expect(jobs.at(-1)).toMatchObject({ why: 'task-poll', outcome: 'completed' });
    } finally {
      await worker.stop();
      await agent.close();
    }
  });

  it('a stray resume of a session parked on a task starts no second chain of polls: one job stays queued, and one queued for later is cancelled', async () => {
    const agent = agentOf([{ name: 'mcp__t__finish', arguments: { ms: 600_000, pollMs: 200 } }]);
    const worker = createWorker({
      agent,
      connectionString: db.url,
      schema: db.bossSchema,
      sweepSeconds: 3600,
    });
    const boss = new PgBoss({
      connectionString: db.url,
      schema: db.bossSchema,
      schedule: false,
      supervise: false,
      migrate: false,
    });
    boss.on('error', () => undefined);
    const queued = async () =>
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${db.bossSchema}".job
           WHERE name = 'muster' AND singleton_key = 'forked' AND state < 'active'`,
        )
      )[0]!.n;
    try {
      await worker.start();
      await boss.start();
      await worker.enqueue({ input: 'Do the work.', sessionId: 'forked' });
      await vi.waitFor(
        async () => expect((await jobsOf('forked')).map((j) => j.outcome)).toContain('parked'),
        { timeout: 30_000, interval: 50 },
      );
      // an approval's old `expires` resume firing now, and one due tomorrow
      const stray = await boss.send(
        'muster',
        { kind: 'resume', sessionId: 'forked', why: 'expires' },
        { singletonKey: 'forked' },
      );
      const tomorrow = await boss.send(
        'muster',
        { kind: 'resume', sessionId: 'forked', why: 'expires' },
        { singletonKey: 'forked', startAfter: new Date(Date.now() + 86_400_000) },
      );
      const stateOf = async (id: string | null) =>
        (
          await db.query<{ state: string }>(
            `SELECT state FROM "${db.bossSchema}".job WHERE id = $1`,
            [id],
          )
        )[0]?.state;
      await vi.waitFor(async () => expect(await stateOf(stray)).toBe('completed'), {
        timeout: 30_000,
        interval: 50,
      });
      expect(await stateOf(tomorrow)).toBe('cancelled');
      // the polls go on as one chain: never two jobs of the session queued at once
      const done = async () =>
        (await jobsOf('forked')).filter((j) => j.why === 'task-poll' && j.state === 'completed')
          .length;
      const before = await done();
      let most = 0;
      await vi.waitFor(
        async () => {
          most = Math.max(most, await queued());
          expect(await done()).toBeGreaterThanOrEqual(before + 2);
        },
        { timeout: 30_000, interval: 25 },
      );
      expect(most).toBe(1);
    } finally {
      await worker.stop();
      await boss.stop({ graceful: false, wait: true });
      await agent.close();
    }
  });

  it('a delegated (asTool) run parked on a task: the root’s link carries the task, so a worker polls it through the root to the end; no link is left', async () => {
    const child = agentOf([{ name: 'mcp__t__finish', arguments: { ms: 2_000, pollMs: 200 } }]);
    const root = createAgent({
      model: scriptedModel(
        Array.from({ length: 5 }, () => turns([{ name: 'delegate', arguments: { prompt: 'go' } }])),
      ),
      tools: [child.asTool({ name: 'delegate', description: 'Does the work.' })],
      policy: { allow: ['delegate'] },
      sessionStore: store,
    });
    const worker = createWorker({
      agent: root,
      connectionString: db.url,
      schema: db.bossSchema,
      sweepSeconds: 3600,
    });
    const before = toolCalls('finish');
    try {
      await worker.start();
      await worker.enqueue({ input: 'Delegate the work.', sessionId: 'delegated' });
      await vi.waitFor(
        async () => {
          const { waits } = await root.sessions.waits({ sessionId: 'delegated' });
          expect(waits).toMatchObject([{ kind: 'task', task: { status: 'working' } }]);
        },
        { timeout: 30_000, interval: 50 },
      );
      await vi.waitFor(
        async () => expect((await store.get('delegated'))?.status).toBe('completed'),
        { timeout: 30_000, interval: 100 },
      );
      expect((await store.get('delegated'))?.finalContent).toBe('got: got: done');
      expect(toolCalls('finish') - before).toBe(1);
      expect((await jobsOf('delegated')).some((j) => j.why === 'task-poll')).toBe(true);
      expect((await store.waits.list({ sessionId: 'delegated' })).waits).toEqual([]);
    } finally {
      await worker.stop();
      await root.close();
      await child.close();
    }
  });

  it('a run parked on a task and an approval: the decision resumes it (the task wait needs none), and task polls finish it', async () => {
    const agent = agentOf(
      [
        { name: 'mcp__t__finish', arguments: { ms: 2_000, pollMs: 200 } },
        { name: 'mcp__t__instant', arguments: { text: 'approved' } },
      ],
      { allow: ['mcp_connect:*', 'mcp__t__finish'], park: true },
    );
    const worker = createWorker({
      agent,
      connectionString: db.url,
      schema: db.bossSchema,
      sweepSeconds: 3600,
    });
    try {
      await worker.start();
      await worker.enqueue({ input: 'Do the work.', sessionId: 'both' });
      let approval: { id: string } | undefined;
      await vi.waitFor(
        async () => {
          const { waits } = await agent.sessions.waits({ sessionId: 'both' });
          expect(waits.map((w) => w.kind).sort()).toEqual(['approval', 'task']);
          approval = waits.find((w) => w.kind === 'approval');
        },
        { timeout: 30_000, interval: 100 },
      );
      await agent.decide('both', approval!.id, { decision: 'allow' });
      await vi.waitFor(async () => expect((await store.get('both'))?.status).toBe('completed'), {
        timeout: 30_000,
        interval: 100,
      });
      const answer = (await store.get('both'))?.finalContent ?? '';
      expect(answer.replace('got: ', '').split(' + ').sort()).toEqual(['approved', 'done']);
      expect((await jobsOf('both')).filter((j) => j.why === 'decided')).toHaveLength(1);
    } finally {
      await worker.stop();
      await agent.close();
    }
  });
});
