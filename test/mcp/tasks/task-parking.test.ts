import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, createAgent, scriptedModel } from '../../../src/index.js';
import type { Agent, ModelRequest, ToolResultMessage, Wait } from '../../../src/index.js';
import { SqliteSessionStore } from '../../../src/session/sqlite.js';
import { startChild } from '../../support/child-agent.js';
import { collect, ofType } from '../../support/run-helpers.js';
import { TASKS_SERVER, requestsFor, startTasksFixture } from './tasks-fixture.js';
import type { TasksFixture } from './tasks-fixture.js';

// Durable tasks (SPEC 15.3 and 15.1): a call that became a task is committed to its session
// before its first poll; a run still polling after mcp.tasks.parkAfterMs, or whose agent
// closes, parks on a `task` wait; any process with the store resumes it and polls on, and the
// server never sees a second tools/call. Across processes on a SQLite file (the child is
// test/fixtures/tasks/task-agent.ts, the server the tasks fixture over stdio, one process per
// agent, all on one state folder); within a process on the memory store.

const CHILD = 'test/fixtures/tasks/task-agent.ts';

interface Event {
  readonly type: string;
  readonly [key: string]: unknown;
}
interface StepResult {
  readonly status?: string;
  readonly waits?: Wait[];
  readonly events?: Event[];
  readonly error?: string;
}

describe('a task across processes (SQLite)', () => {
  let fixture: TasksFixture;
  let dir: string;
  beforeAll(async () => {
    fixture = await startTasksFixture('stdio');
    dir = mkdtempSync(join(tmpdir(), 'muster-task-park-'));
  });
  afterAll(async () => {
    await fixture?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const envOf = (sessionId: string, more: Record<string, string> = {}) => ({
    TASK_DB: join(dir, 'sessions.db'),
    TASK_SESSION: sessionId,
    TASK_SERVER: TASKS_SERVER,
    TASK_STATE: fixture.dir,
    ...more,
  });

  /** One step in a process of its own, which must exit by itself, with 0. */
  async function step(
    sessionId: string,
    mode: 'run' | 'resume',
    more: Record<string, string> = {},
  ): Promise<StepResult> {
    const child = startChild(CHILD, envOf(sessionId, { TASK_MODE: mode, ...more }));
    const result = JSON.parse(await child.line('RESULT')) as StepResult;
    expect(await child.exited, `${mode}: ${child.stderr()}`).toEqual({ code: 0, signal: null });
    return result;
  }

  const calls = () => fixture.log().filter((r) => r.method === 'tools/call');

  it('a run still polling after parkAfterMs parks on a task wait and its process exits; another process resumes, polls, and the model gets the result of the one tools/call', async () => {
    const sessionId = 'task-park-exit';
    const before = calls().length;
    const parked = await step(sessionId, 'run', { TASK_MS: '5000', TASK_PARK_AFTER_MS: '1000' });
    expect(parked.error).toBeUndefined();
    expect(parked.status).toBe('parked');
    expect(parked.waits).toHaveLength(1);
    const wait = parked.waits![0]!;
    expect(wait).toMatchObject({
      kind: 'task',
      callId: 'call_task',
      toolName: 'mcp__t__finish',
      server: 't',
      status: 'pending',
      task: { status: 'working' },
    });
    const taskId = wait.task!.taskId;
    expect(parked.events!.map((e) => e.type)).toContain('session.parked');
    expect(ofType(parked.events as never, 'tool.completed')).toEqual([]);
    const pollsBefore = requestsFor(fixture.log(), 'tasks/get', taskId);
    expect(pollsBefore).toBeGreaterThanOrEqual(1);

    const resumed = await step(sessionId, 'resume');
    expect(resumed.error).toBeUndefined();
    expect(resumed.status).toBe('session.completed');
    expect(resumed.events!.find((e) => e.type === 'session.completed')).toMatchObject({
      content: 'got: done',
    });
    expect(resumed.events!.find((e) => e.type === 'tool.completed')).toMatchObject({
      callId: 'call_task',
      isError: false,
      content: 'done',
    });
    // the resuming process polled (its own server process), and no call was sent again
    expect(requestsFor(fixture.log(), 'tasks/get', taskId)).toBeGreaterThan(pollsBefore);
    expect(calls().length - before).toBe(1);
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);

    const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
    try {
      expect((await store.get(sessionId))?.status).toBe('completed');
      expect((await store.waits!.list({ sessionId })).waits).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a process SIGKILLed while it polls leaves the handle in the session: a resume polls on, and the server never sees a second tools/call', async () => {
    const sessionId = 'task-sigkill';
    const before = calls().length;
    const first = startChild(
      CHILD,
      envOf(sessionId, { TASK_MODE: 'run', TASK_MS: '2500', TASK_READY: '1' }),
    );
    const taskId = await first.line('READY');
    // the handle was committed before the first poll
    const store = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
    try {
      expect((await store.waits!.list({ sessionId })).waits).toMatchObject([
        { kind: 'task', callId: 'call_task', task: { taskId } },
      ]);
    } finally {
      await store.close();
    }
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const resumed = await step(sessionId, 'resume');
    expect(resumed.error).toBeUndefined();
    expect(resumed.events!.find((e) => e.type === 'session.completed')).toMatchObject({
      content: 'got: done',
    });
    expect(calls().length - before).toBe(1);
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
  });
});

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
      /** The model's call (default: `finish` of 60 s). */
      call?: { name: string; arguments: object };
      /** The elicitation handler parks (a person answers later). */
      parkInput?: boolean;
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
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      sessionStore: store,
      ...(options.waitTtlMs !== undefined ? { waits: { ttlMs: options.waitTtlMs } } : {}),
      observability: {
        onEvent: (event) => {
          if (event.type === 'tool.task') options.onTask?.(agent);
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
