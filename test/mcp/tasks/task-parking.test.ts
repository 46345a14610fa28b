import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, createAgent, scriptedModel } from '../../../src/index.js';
import type {
  Agent,
  ModelRequest,
  PolicyOptions,
  SessionLease,
  ToolResultMessage,
  Wait,
} from '../../../src/index.js';
import { collect, ofType } from '../../support/run-helpers.js';
import { requestsFor, startTasksFixture } from './tasks-fixture.js';
import type { TasksFixture } from './tasks-fixture.js';

// Durable tasks (SPEC 15.3 and 15.1), within a process on the memory store: a call that
// became a task is committed to its session before its first poll; a run still polling after
// mcp.tasks.parkAfterMs, or whose agent closes, parks on a `task` wait; a resume polls on, and
// the server never sees a second tools/call. Across processes (SQLite and PostgreSQL, stdio
// and Streamable HTTP): test/mcp/tasks/task-processes.test.ts.

/** A memory store whose lease renewals stop being answered once `stall` is set. */
class StallingStore extends MemorySessionStore {
  stall = false;
  override async acquire(
    sessionId: string,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    const lease = await super.acquire(sessionId, owner, ttlMs);
    if (!lease) return lease;
    return {
      ...lease,
      renew: () => (this.stall ? new Promise<void>(() => undefined) : lease.renew()),
    };
  }
}

describe('a task parked within a process (memory store)', () => {
  let fixture: TasksFixture;
  beforeAll(async () => {
    fixture = await startTasksFixture('stdio');
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  function agentOn(
    store: MemorySessionStore,
    options: {
      parkAfterMs?: number;
      waitTtlMs?: number;
      onTask?: (agent: Agent) => void;
      /** Told when a resumed run has started (its waits read), before its first poll. */
      onResumed?: (agent: Agent) => void;
      /** The model's call (default: `finish` of 60 s). */
      call?: { name: string; arguments: object };
      /** The elicitation handler parks (a person answers later). */
      parkInput?: boolean;
      /** The policy (default: every tool allowed). */
      policy?: PolicyOptions;
      sessionLeaseMs?: number;
    } = {},
  ): Agent {
    const call = options.call ?? { name: 'mcp__t__finish', arguments: { ms: 60_000 } };
    const turn = (request: ModelRequest) => {
      const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
      if (!result) return { toolCalls: [{ ...call, id: 'call_task' }] };
      return { text: `got: ${result.content}` };
    };
    const agent: Agent = createAgent({
      model: scriptedModel(Array.from({ length: 5 }, () => turn)),
      mcpServers: { t: fixture.config },
      mcp: {
        strictConfig: true,
        ...(options.parkInput
          ? { handlers: { elicitation: async () => ({ action: 'park' as const }) } }
          : {}),
        tasks: {
          minPollIntervalMs: 25,
          maxPollIntervalMs: 100,
          ...(options.parkAfterMs !== undefined ? { parkAfterMs: options.parkAfterMs } : {}),
        },
      },
      policy: options.policy ?? { allow: ['mcp_connect:*', 'mcp__*'] },
      sessionStore: store,
      ...(options.waitTtlMs !== undefined ? { waits: { ttlMs: options.waitTtlMs } } : {}),
      ...(options.sessionLeaseMs !== undefined ? { sessionLeaseMs: options.sessionLeaseMs } : {}),
      observability: {
        onEvent: (event) => {
          if (event.type === 'tool.task') options.onTask?.(agent);
          if (event.type === 'session.started' && event.continued) options.onResumed?.(agent);
        },
      },
    });
    return agent;
  }

  it("close() while a task is polled sends no tasks/cancel: the run parks on its task wait, and a later resume gets the task's result", async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-close';
    const callsBefore = fixture.log().filter((r) => r.method === 'tools/call').length;
    let closing: Promise<void> | undefined;
    const first = agentOn(store, {
      onTask: (agent) => {
        closing ??= agent.close();
      },
    });
    const sent = await first.send('Do the work.', { sessionId });
    await closing;
    expect(sent.status).toBe('parked');
    expect(sent.waits).toMatchObject([{ kind: 'task', callId: 'call_task', server: 't' }]);
    const taskId = sent.waits![0]!.task!.taskId;
    expect(ofType(sent.events, 'tool.completed')).toEqual([]);

    // the task finishes on the server meanwhile (its work is marked done on disk)
    fixture.finish(taskId);
    const second = agentOn(store);
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.completed')[0]).toMatchObject({ content: 'got: done' });
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
    expect(fixture.log().filter((r) => r.method === 'tools/call')).toHaveLength(callsBefore + 1);
  });

  it('a resumed task call is not authorized again: the approver that let it be sent, who would now deny it, is not asked, and the task completes (never denied while it runs)', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-approved-once';
    const callsBefore = fixture.log().filter((r) => r.method === 'tools/call').length;
    let approvals = 0;
    // approves the first time it is asked, denies after
    const policy: PolicyOptions = {
      allow: ['mcp_connect:*'],
      approve: async () => ++approvals === 1,
    };
    let closing: Promise<void> | undefined;
    const first = agentOn(store, {
      policy,
      onTask: (agent) => {
        closing ??= agent.close();
      },
    });
    const sent = await first.send('Do the work.', { sessionId });
    await closing;
    expect(sent.status).toBe('parked');
    expect(approvals).toBe(1);
    const taskId = sent.waits![0]!.task!.taskId;

    fixture.finish(taskId);
    const second = agentOn(store, { policy });
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      expect(approvals).toBe(1);
      expect(ofType(events, 'tool.approval.requested')).toEqual([]);
      expect(ofType(events, 'tool.completed')[0]).toMatchObject({
        callId: 'call_task',
        isError: false,
        content: 'done',
      });
      expect(ofType(events, 'session.completed')[0]).toMatchObject({ content: 'got: done' });
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
    expect(fixture.log().filter((r) => r.method === 'tools/call')).toHaveLength(callsBefore + 1);
  });

  it("a run that loses its session's lease while it polls a task sends no tasks/cancel: the task wait stays, and the session's next run polls the task on to its result", async () => {
    const store = new StallingStore();
    const sessionId = 'task-lease-lost';
    const callsBefore = fixture.log().filter((r) => r.method === 'tools/call').length;
    // the run's lease renewals stop being answered once its call is a task: the lease is lost
    const first = agentOn(store, {
      sessionLeaseMs: 300,
      onTask: () => {
        store.stall = true;
      },
    });
    let taskId: string;
    try {
      const { events, error } = await collect(first.run({ input: 'Do the work.', sessionId }));
      expect(error).toMatchObject({ code: 'SESSION_ALREADY_RUNNING' });
      taskId = ofType(events, 'tool.task')[0]!.taskId;
    } finally {
      await first.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
    expect((await store.waits.list({ sessionId })).waits).toMatchObject([
      { kind: 'task', callId: 'call_task', task: { taskId } },
    ]);

    store.stall = false;
    fixture.finish(taskId);
    const second = agentOn(store, { sessionLeaseMs: 300 });
    try {
      // the lost lease lives until it expires
      let resumed = await collect(second.resume(sessionId));
      while ((resumed.error as { code?: string } | undefined)?.code === 'SESSION_ALREADY_RUNNING') {
        await new Promise((resolve) => setTimeout(resolve, 25));
        resumed = await collect(second.resume(sessionId));
      }
      expect(resumed.error).toBeUndefined();
      expect(ofType(resumed.events, 'session.completed')[0]).toMatchObject({
        content: 'got: done',
      });
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
    expect(fixture.log().filter((r) => r.method === 'tools/call')).toHaveLength(callsBefore + 1);
  });

  it('a task wait needs no decision (decide refuses it); a resume whose task still works parks again on the same wait, and the one after it finishes', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-park-again';
    const callsBefore = fixture.log().filter((r) => r.method === 'tools/call').length;
    const first = agentOn(store, { parkAfterMs: 1 });
    let wait: Wait;
    try {
      const sent = await first.send('Do the work.', { sessionId });
      expect(sent.status).toBe('parked');
      wait = sent.waits![0]!;
      await expect(first.decide(sessionId, wait.id, { decision: 'allow' })).rejects.toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    } finally {
      await first.close();
    }
    const taskId = wait.task!.taskId;

    const second = agentOn(store, { parkAfterMs: 1 });
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.parked')[0]!.waits).toMatchObject([
        { id: wait.id, kind: 'task', task: { taskId, status: 'working' } },
      ]);
      expect(ofType(events, 'tool.completed')).toEqual([]);
    } finally {
      await second.close();
    }

    fixture.finish(taskId);
    const third = agentOn(store);
    try {
      const { events, error } = await collect(third.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.completed')[0]).toMatchObject({ content: 'got: done' });
      expect((await store.waits.list({ sessionId })).waits).toEqual([]);
    } finally {
      await third.close();
    }
    expect(fixture.log().filter((r) => r.method === 'tools/call')).toHaveLength(callsBefore + 1);
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
  });

  it('a task wait decided `cancel`: the resume sends one tasks/cancel, polls no more, and the call is TOOL_OUTCOME_UNKNOWN', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-cancel-decided';
    const first = agentOn(store, { parkAfterMs: 1 });
    let wait: Wait;
    try {
      const sent = await first.send('Do the work.', { sessionId });
      expect(sent.status).toBe('parked');
      wait = sent.waits![0]!;
      const decided = await first.decide(sessionId, wait.id, {
        decision: 'cancel',
        reason: 'no longer needed',
      });
      expect(decided).toMatchObject({ status: 'decided', decision: { decision: 'cancel' } });
    } finally {
      await first.close();
    }
    const taskId = wait.task!.taskId;
    const polls = requestsFor(fixture.log(), 'tasks/get', taskId);
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);

    const second = agentOn(store);
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'wait.decided')).toMatchObject([
        { waitId: wait.id, applied: true, decision: { decision: 'cancel' } },
      ]);
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done).toMatchObject({ errorCode: 'TOOL_OUTCOME_UNKNOWN', callId: 'call_task' });
      expect(done.content).toContain(taskId);
      expect(done.content).toContain('no longer needed');
      expect(ofType(events, 'session.completed')).toHaveLength(1);
      expect((await store.waits.list({ sessionId })).waits).toEqual([]);
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(1);
    expect(requestsFor(fixture.log(), 'tasks/get', taskId)).toBe(polls);
  });

  it('a cancel decided while a resumed run polls the task is not undone when that run parks again: the next resume cancels', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-cancel-raced';
    const first = agentOn(store, { parkAfterMs: 1 });
    let wait: Wait;
    try {
      const sent = await first.send('Do the work.', { sessionId });
      expect(sent.status).toBe('parked');
      wait = sent.waits![0]!;
    } finally {
      await first.close();
    }
    const taskId = wait.task!.taskId;

    // the resumed run read its task wait pending; a decision that passed decide's lease check
    // just before the run took the lease is stored while it polls (the store's own decide:
    // agent.decide refuses while the lease is held)
    let decided: Promise<Wait> | undefined;
    const second = agentOn(store, {
      parkAfterMs: 1,
      onResumed: () => {
        decided ??= store.waits.decide(sessionId, wait.id, { decision: 'cancel', reason: 'ann' });
      },
    });
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      expect(decided).toBeDefined();
      await decided;
      // it parks again on the same wait, which keeps the decision
      expect(ofType(events, 'session.parked')[0]!.waits).toMatchObject([{ id: wait.id }]);
      expect(await store.waits.get(sessionId, wait.id)).toMatchObject({
        status: 'decided',
        decision: { decision: 'cancel', reason: 'ann' },
      });
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);

    const third = agentOn(store, { parkAfterMs: 1 });
    try {
      const { events, error } = await collect(third.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'tool.completed')[0]).toMatchObject({
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
        callId: 'call_task',
      });
      expect(ofType(events, 'session.completed')).toHaveLength(1);
    } finally {
      await third.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(1);
  });

  it("a task's input request answered `park` parks the run on an elicitation wait beside its task wait; decided, the resume sends the answer with one tasks/update and polls on", async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-input-park';
    const ask = { name: 'mcp__t__ask', arguments: { ms: 10 } };
    const first = agentOn(store, { call: ask, parkInput: true });
    let waits: readonly Wait[];
    try {
      const sent = await first.send('Do the work.', { sessionId });
      expect(sent.status).toBe('parked');
      waits = sent.waits!;
      expect(waits.map((w) => w.kind).sort()).toEqual(['elicitation', 'task']);
      expect(waits.find((w) => w.kind === 'elicitation')).toMatchObject({
        callId: 'call_task',
        message: 'Go on?',
      });
      // undecided: a resume stops at the form, writing nothing
      const early = await collect(first.resume(sessionId));
      expect(ofType(early.events, 'session.parked')).toHaveLength(1);
      const form = waits.find((w) => w.kind === 'elicitation')!;
      await first.decide(sessionId, form.id, { action: 'accept', content: { ok: true } });
    } finally {
      await first.close();
    }
    const taskId = waits.find((w) => w.kind === 'task')!.task!.taskId;
    expect(requestsFor(fixture.log(), 'tasks/update', taskId)).toBe(0);

    const second = agentOn(store, { call: ask });
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.completed')[0]).toMatchObject({
        content: 'got: confirmed {"ok":true}',
      });
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/update', taskId)).toBe(1);
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
    expect(fixture.log().filter((r) => r.method === 'tools/call' && r.tool === 'ask')).toHaveLength(
      1,
    );
  });

  it('a task wait past waits.ttlMs gets one last poll, then the call is TOOL_OUTCOME_UNKNOWN (and the task cancelled once)', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-expired-wait';
    const first = agentOn(store, { parkAfterMs: 1, waitTtlMs: 1 });
    let taskId: string;
    try {
      const sent = await first.send('Do the work.', { sessionId });
      expect(sent.status).toBe('parked');
      taskId = sent.waits![0]!.task!.taskId;
    } finally {
      await first.close();
    }
    const polls = requestsFor(fixture.log(), 'tasks/get', taskId);
    const second = agentOn(store, { waitTtlMs: 1 });
    try {
      const { events, error } = await collect(second.resume(sessionId));
      expect(error).toBeUndefined();
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done).toMatchObject({ errorCode: 'TOOL_OUTCOME_UNKNOWN', callId: 'call_task' });
      expect(done.content).toContain(taskId);
      expect(ofType(events, 'session.completed')).toHaveLength(1);
    } finally {
      await second.close();
    }
    expect(requestsFor(fixture.log(), 'tasks/get', taskId)).toBe(polls + 1);
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(1);
  });

  it("a delegated (asTool) run parked on a task: the root's link carries the task and keeps its id across resumes, and none is left when the call ends", async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-delegated';
    const child = agentOn(store, { parkAfterMs: 1 });
    const turn = (request: ModelRequest) => {
      const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
      if (!result)
        return { toolCalls: [{ name: 'delegate', arguments: { prompt: 'go' }, id: 'c' }] };
      return { text: `root got: ${result.content}` };
    };
    const root = createAgent({
      model: scriptedModel(Array.from({ length: 5 }, () => turn)),
      tools: [child.asTool({ name: 'delegate', description: 'Does the work.' })],
      policy: { allow: ['delegate'] },
      sessionStore: store,
    });
    try {
      const sent = await root.send('Delegate the work.', { sessionId });
      expect(sent.status).toBe('parked');
      const [link] = sent.waits!;
      expect(link).toMatchObject({ kind: 'task', callId: 'c', task: { status: 'working' } });
      // polled through the root, still working: parked again on the same link, and only on it
      const again = await collect(root.resume(sessionId));
      expect(again.error).toBeUndefined();
      expect((await store.waits.list({ sessionId })).waits).toMatchObject([
        { id: link!.id, kind: 'task', task: { taskId: link!.task!.taskId } },
      ]);
      fixture.finish(link!.task!.taskId);
      const { events, error } = await collect(root.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.completed').at(-1)).toMatchObject({
        sessionId,
        content: 'root got: got: done',
      });
      expect((await store.waits.list({ sessionId })).waits).toEqual([]);
    } finally {
      await root.close();
      await child.close();
    }
  });
});
