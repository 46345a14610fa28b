import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  McpError,
  MemorySessionStore,
  scriptedModel,
  ToolError,
} from '../../../src/index.js';
import type { Agent, AgentEvent, McpElicitationRequest, SessionStore } from '../../../src/index.js';
import { McpClientManager } from '../../../src/mcp/mcp-entry.js';
import type { McpTaskHandle } from '../../../src/mcp/mcp-entry.js';
import { collect, ofType } from '../../support/run-helpers.js';
import { requestsFor, startTasksFixture, unendedTasks } from './tasks-fixture.js';
import type { LoggedRequest, TasksFixture } from './tasks-fixture.js';

// Calls that become tasks (SPEC 15.3), end to end against the real fixture process over
// stdio and Streamable HTTP: a run's model call and a host's direct call are polled to the
// task's end and come back as if the call had answered; every way a task ends, and every
// way a call gives one up, is what the server saw. One fixture, one agent and two managers
// per transport; fixture tasks take tens of milliseconds and are polled every 25 to 100.

const TASK_POLLING = { minPollIntervalMs: 25, maxPollIntervalMs: 100 };

/**
 * A memory store without `waits`: a store a run cannot park on (a custom store of a host),
 * so a call whose agent closes is not parked (test/mcp/tasks/task-parking.test.ts parks it).
 */
function storeWithoutWaits(): SessionStore {
  const store = new MemorySessionStore();
  return new Proxy(store, {
    get: (target, key) => {
      if (key === 'waits') return undefined;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/** The tasks the fixture created during `fn`, and what it logged meanwhile. */
async function during<T>(
  fixture: TasksFixture,
  fn: () => Promise<T>,
): Promise<{ value: T; log: LoggedRequest[]; created: string[] }> {
  const before = fixture.log().length;
  const value = await fn();
  const log = fixture.log().slice(before);
  return {
    value,
    log,
    created: log.filter((r) => r.method === 'task-created').map((r) => r.taskId!),
  };
}

/**
 * The count of `method` for `taskId` once it reached `atLeast` and one more round trip to
 * the fixture went through after it (a second request sent with the first shows by then).
 */
async function settledCount(
  fixture: TasksFixture,
  roundTrip: () => Promise<unknown>,
  method: string,
  taskId: string,
  atLeast = 1,
): Promise<number> {
  await expect
    .poll(() => requestsFor(fixture.log(), method, taskId))
    .toBeGreaterThanOrEqual(atLeast);
  await roundTrip();
  return requestsFor(fixture.log(), method, taskId);
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err,
  );
}

describe.each(['stdio', 'http'] as const)('calls that become tasks over %s', (transport) => {
  let fixture: TasksFixture;
  let agent: Agent;
  let manager: McpClientManager;
  let legacy: McpClientManager;
  const plan: { name: string; arguments: object }[] = [];
  /** The task the close test leaves running on the server (a close never cancels). */
  let leftRunning: string | undefined;
  const asked: McpElicitationRequest[] = [];
  let onEvent: (event: AgentEvent) => void = () => undefined;
  const model = scriptedModel(
    Array.from(
      { length: 100 },
      () => (request: { messages: readonly { role: string }[] }) =>
        request.messages.at(-1)?.role === 'tool' ? { text: 'ok' } : { toolCalls: [plan.shift()!] },
    ),
  );

  beforeAll(async () => {
    // forced: the legacy connection is answered with tasks too (an invalid response there)
    fixture = await startTasksFixture(transport, { MUSTER_TASKS_FORCE: '1' });
    agent = createAgent({
      model,
      mcpServers: { t: fixture.config },
      mcp: {
        strictConfig: true,
        tasks: TASK_POLLING,
        handlers: {
          elicitation: async (request) => {
            asked.push(request);
            return { action: 'accept', content: { ok: true } };
          },
        },
      },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      limits: { maxToolResultBytes: 20_000 },
      observability: { onEvent: (event) => onEvent(event) },
    });
    manager = new McpClientManager(
      { t: fixture.config },
      {
        strictConfig: true,
        tasks: TASK_POLLING,
        handlers: { elicitation: async () => ({ action: 'accept', content: { ok: true } }) },
      },
    );
    legacy = new McpClientManager(
      { t: fixture.config },
      { strictConfig: true, protocol: { mode: { pin: '2025-11-25' } } },
    );
  });

  afterAll(async () => {
    await Promise.all([agent?.close(), manager?.close(), legacy?.close()]);
    await fixture?.stop();
  });

  /** One round trip to the fixture after which earlier background requests show in its log. */
  const roundTrip = () => manager.callTool('t', 'instant', { text: 'sync' });

  /** One model turn that calls `tool` of the fixture; the run's events. */
  async function modelCalls(tool: string, args: object, signal?: AbortSignal) {
    plan.push({ name: `mcp__t__${tool}`, arguments: args });
    return collect(agent.run({ input: `call ${tool}`, ...(signal ? { signal } : {}) }));
  }

  it('a task that completes reaches the model with its result, from one tools/call; its statuses are tool.task events', async () => {
    const { value, log, created } = await during(fixture, () =>
      modelCalls('finish', { ms: 60, text: 'all done' }),
    );
    const done = ofType(value.events, 'tool.completed')[0]!;
    expect(done).toMatchObject({ isError: false, executed: true, content: 'all done' });
    // the model's next request carries the result
    expect(JSON.stringify(model.requests.at(-1)!.messages.at(-1))).toContain('all done');
    expect(log.filter((r) => r.method === 'tools/call' && r.tool === 'finish')).toHaveLength(1);
    expect(created).toHaveLength(1);
    const statuses = ofType(value.events, 'tool.task');
    expect(statuses[0]).toMatchObject({
      callId: done.callId,
      toolName: 'mcp__t__finish',
      server: 't',
      taskId: created[0],
      status: 'working',
    });
    expect(statuses.at(-1)).toMatchObject({ status: 'completed' });
    // each event is a change: the same status and message never twice in a row
    for (let i = 1; i < statuses.length; i++)
      expect([statuses[i]!.status, statuses[i]!.statusMessage]).not.toEqual([
        statuses[i - 1]!.status,
        statuses[i - 1]!.statusMessage,
      ]);
    expect(log.filter((r) => r.method === 'header-mismatch')).toEqual([]);
  });

  it('a completed task with isError, a failed task (with and without its error) and one the server cancelled are error results', async () => {
    const isError = await modelCalls('finish', { ms: 10, isError: true, text: 'bad input' });
    expect(ofType(isError.events, 'tool.completed')[0]).toMatchObject({
      isError: true,
      content: 'bad input',
    });
    expect(ofType(isError.events, 'tool.completed')[0]!.errorCode).toBeUndefined();

    const failed = await modelCalls('fail', { ms: 10 });
    const failedDone = ofType(failed.events, 'tool.completed')[0]!;
    expect(failedDone).toMatchObject({ isError: true, errorCode: 'TOOL_EXECUTION_FAILED' });
    expect(failedDone.content).toContain('the work failed');

    const bare = await modelCalls('fail', { ms: 10, bare: true });
    const bareDone = ofType(bare.events, 'tool.completed')[0]!;
    expect(bareDone).toMatchObject({ isError: true, errorCode: 'TOOL_EXECUTION_FAILED' });
    expect(bareDone.content).toContain('it broke');

    const cancelled = await modelCalls('selfcancel', { ms: 10 });
    const cancelledDone = ofType(cancelled.events, 'tool.completed')[0]!;
    expect(cancelledDone).toMatchObject({ isError: true, errorCode: 'TOOL_EXECUTION_FAILED' });
    expect(cancelledDone.content).toContain('the server gave up');

    // the host's direct call gets the typed error
    const error = await rejection(manager.callTool('t', 'fail', { ms: 10 }));
    expect(ToolError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
      details: { reason: 'task-failed', protocolCode: -32603 },
    });
  });

  it('an oversized task result is TOOL_RESULT_TOO_LARGE, as a direct answer would be', async () => {
    const { events } = await modelCalls('big', { bytes: 50_000 });
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      errorCode: 'TOOL_RESULT_TOO_LARGE',
      executed: true,
    });
  });

  it('a poll interval of 0 and one of a day are clamped to mcp.tasks', async () => {
    const zero = await during(fixture, () =>
      manager.callTool('t', 'finish', { ms: 300, pollMs: 0, text: 'fast' }),
    );
    expect(zero.value.content).toEqual([{ type: 'text', text: 'fast' }]);
    // at most one poll per minPollIntervalMs (25) of the task's 300 ms, plus the last
    const zeroPolls = requestsFor(zero.log, 'tasks/get', zero.created[0]!);
    expect(zeroPolls).toBeGreaterThanOrEqual(1);
    expect(zeroPolls).toBeLessThanOrEqual(300 / 25 + 2);

    // a day would never come: polled at maxPollIntervalMs (100) instead
    const day = await during(fixture, () =>
      manager.callTool('t', 'finish', { ms: 50, pollMs: 86_400_000, text: 'slow' }),
    );
    expect(day.value.content).toEqual([{ type: 'text', text: 'slow' }]);
    expect(requestsFor(day.log, 'tasks/get', day.created[0]!)).toBeGreaterThanOrEqual(1);
  });

  it('a task the server no longer knows (-32602) and one past its ttl are TOOL_OUTCOME_UNKNOWN', async () => {
    const gone = await rejection(manager.callTool('t', 'vanish', {}));
    expect(gone).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: { reason: 'task-not-found' },
    });
    const expired = await during(fixture, () =>
      rejection(manager.callTool('t', 'finish', { ms: 60_000, ttlMs: 150 })),
    );
    expect(expired.value).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: { reason: 'task-expired', taskId: expired.created[0] },
    });

    const { events } = await modelCalls('vanish', {});
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
  });

  it('a status no revision defines ends the call after one poll with an unknown outcome (the invalid response its cause), and the task is cancelled once', async () => {
    const { value, created } = await during(fixture, () =>
      rejection(manager.callTool('t', 'malformed', { ms: 10 })),
    );
    expect(ToolError.isInstance(value)).toBe(true);
    expect(value).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: {
        taskId: created[0],
        failure: { code: 'MCP_OPERATION_FAILED', reason: 'invalid-response' },
      },
    });
    const cause = (value as Error).cause;
    expect(McpError.isInstance(cause)).toBe(true);
    expect(cause).toMatchObject({ details: { reason: 'invalid-response', method: 'tasks/get' } });
    expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
    expect(requestsFor(fixture.log(), 'tasks/get', created[0]!)).toBe(1);
  });

  it('a task answer with a valid task id but a malformed field is cancelled once, and the call is TOOL_OUTCOME_UNKNOWN', async () => {
    const { value, created } = await during(fixture, () =>
      rejection(manager.callTool('t', 'finish', { ms: 60_000, badSeed: true })),
    );
    expect(created).toHaveLength(1);
    expect(value).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: { taskId: created[0], failure: { reason: 'invalid-response' } },
    });
    expect((value as Error).cause).toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      details: { reason: 'invalid-response', method: 'tools/call' },
    });
    expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
  });

  it("a call's maxTotalTimeoutMs bounds the polling of its task: TOOL_OUTCOME_UNKNOWN (timeout), the task cancelled once", async () => {
    const { value, created } = await during(fixture, () =>
      rejection(manager.callTool('t', 'finish', { ms: 60_000 }, { maxTotalTimeoutMs: 300 })),
    );
    expect(value).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: {
        reason: 'timeout',
        limit: 'maxTotalTimeoutMs',
        limitMs: 300,
        taskId: created[0],
      },
    });
    expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
  });

  it("a server whose createdAt is an hour behind: the ttl counts from when the task answer was read, on Muster's clock", async () => {
    // still working at its first polls: a ttl counted from the server's createdAt would be over
    const result = await manager.callTool('t', 'finish', {
      ms: 300,
      createdSkewMs: -3_600_000,
      text: 'on time',
    });
    expect(result.content).toEqual([{ type: 'text', text: 'on time' }]);
  });

  it('-32602 to a tasks/update is a refused answer, not an unknown task: the call is TOOL_OUTCOME_UNKNOWN and the task cancelled once', async () => {
    const { value, created } = await during(fixture, () =>
      rejection(manager.callTool('t', 'ask', { ms: 10, refuseUpdate: true })),
    );
    expect(value).toMatchObject({
      code: 'TOOL_OUTCOME_UNKNOWN',
      details: {
        reason: 'unknown',
        taskId: created[0],
        failure: { code: 'TOOL_EXECUTION_FAILED' },
      },
    });
    expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
  });

  it('a task that keeps asking for new input is given up after 10 rounds (input-rounds-exceeded) and cancelled once', async () => {
    const { value, created } = await during(fixture, () =>
      rejection(manager.callTool('t', 'ask', { ms: 10, rounds: 50 })),
    );
    expect(value).toMatchObject({
      code: 'TOOL_EXECUTION_FAILED',
      details: { reason: 'input-rounds-exceeded', taskId: created[0] },
    });
    expect(requestsFor(fixture.log(), 'tasks/update', created[0]!)).toBe(10);
    expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
  });

  if (transport === 'http')
    it('a tasks/get refused with HTTP 401 never makes the call "not run": TOOL_OUTCOME_UNKNOWN, the refusal its cause', async () => {
      const { value, created } = await during(fixture, () =>
        rejection(manager.callTool('t', 'finish', { ms: 60_000, getStatus: 401 })),
      );
      expect(value).toMatchObject({
        code: 'TOOL_OUTCOME_UNKNOWN',
        details: { taskId: created[0], failure: { code: 'MCP_AUTH_REQUIRED' } },
      });
      expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
    });

  it("the agent's close() while a task is polled sends no tasks/cancel: on a store that cannot park, the call is TOOL_OUTCOME_UNKNOWN naming the task, the run ABORTED", async () => {
    const closing = createAgent({
      sessionStore: storeWithoutWaits(),
      model: scriptedModel([
        { toolCalls: [{ name: 'mcp__t__finish', arguments: { ms: 60_000 } }] },
      ]),
      mcpServers: { t: fixture.config },
      mcp: { strictConfig: true, tasks: TASK_POLLING },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      observability: {
        onEvent: (event) => {
          if (event.type === 'tool.task') void closing.close();
        },
      },
    });
    const { events, error } = await collect(closing.run({ input: 'call finish' }));
    await closing.close();
    expect(error).toMatchObject({ code: 'ABORTED' });
    const taskId = ofType(events, 'tool.task')[0]!.taskId;
    leftRunning = taskId;
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    expect(ofType(events, 'tool.completed')[0]!.content).toContain(taskId);
    await roundTrip();
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(0);
    // the task is still there for whoever follows it
    expect(
      fixture.log().filter((r) => r.method === 'task-created' && r.taskId === taskId),
    ).toHaveLength(1);
  });

  it('an abort of the run sends tasks/cancel once, and the call is TOOL_OUTCOME_UNKNOWN', async () => {
    const ac = new AbortController();
    onEvent = (event) => {
      if (event.type === 'tool.task') ac.abort();
    };
    try {
      const { events, error } = await modelCalls('finish', { ms: 60_000 }, ac.signal);
      expect(error).toMatchObject({ code: 'ABORTED' });
      expect(ofType(events, 'tool.completed')[0]).toMatchObject({
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      const taskId = ofType(events, 'tool.task')[0]!.taskId;
      expect(await settledCount(fixture, roundTrip, 'tasks/cancel', taskId)).toBe(1);
    } finally {
      onEvent = () => undefined;
    }
  });

  it('a call aborted while its task answer is in flight still cancels that task (none is orphaned)', async () => {
    const ac = new AbortController();
    // the fixture sends a progress notification just before the task answer: the abort
    // happens with the answer already on its way
    const { value, created } = await during(fixture, () =>
      rejection(
        manager.callTool(
          't',
          'finish',
          { ms: 60_000, progressFirst: true },
          { signal: ac.signal, onProgress: () => ac.abort() },
        ),
      ),
    );
    expect(value).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN', details: { reason: 'aborted' } });
    expect(created).toHaveLength(1);
    expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
  });

  // Streamable HTTP only: there an abort cuts the call's response stream (the protocol's
  // cancellation), so an answer still being written would never be read; over stdio the
  // official server drops an answer whose request was cancelled before it was written.
  if (transport === 'http')
    it('a call aborted before its task answer was written keeps its stream open for it, and cancels the task', async () => {
      const ac = new AbortController();
      const { value, created } = await during(fixture, () =>
        rejection(
          manager.callTool(
            't',
            'finish',
            { ms: 60_000, progressFirst: true, answerDelayMs: 200 },
            { signal: ac.signal, onProgress: () => ac.abort() },
          ),
        ),
      );
      expect(value).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN', details: { reason: 'aborted' } });
      expect(created).toHaveLength(1);
      expect(await settledCount(fixture, roundTrip, 'tasks/cancel', created[0]!)).toBe(1);
    });

  it("a task's input requests are answered through the elicitation handler, once per key", async () => {
    asked.length = 0;
    const { value, log, created } = await during(fixture, () =>
      modelCalls('ask', { ms: 10, answerLagMs: 150 }),
    );
    expect(ofType(value.events, 'tool.completed')[0]).toMatchObject({
      isError: false,
      content: 'confirmed {"ok":true}',
    });
    // the server repeated the request while the answer was not seen yet: asked once, sent once
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'form', message: 'Go on?' });
    expect(requestsFor(log, 'tasks/update', created[0]!)).toBe(1);
    expect(ofType(value.events, 'tool.task').map((e) => e.status)).toContain('input_required');
    expect(ofType(value.events, 'elicitation.requested')).toHaveLength(1);
  });

  it('callTool(..., { task: true }) gives a handle: status, result, cancel; a call answered at once gives a completed one', async () => {
    const handle: McpTaskHandle = await manager.callTool(
      't',
      'finish',
      { ms: 80, text: 'handled' },
      { task: true },
    );
    expect(typeof handle.taskId).toBe('string');
    expect(['working', 'completed']).toContain((await handle.status()).status);
    const [first, second] = await Promise.all([handle.result(), handle.result()]);
    expect(first).toBe(second);
    expect(first.content).toEqual([{ type: 'text', text: 'handled' }]);
    expect(await handle.status()).toMatchObject({ status: 'completed' });

    const instant = await manager.callTool('t', 'instant', { text: 'now' }, { task: true });
    expect(instant.taskId).toBeUndefined();
    expect(await instant.status()).toEqual({ status: 'completed' });
    expect((await instant.result()).content).toEqual([{ type: 'text', text: 'now' }]);

    const long = await manager.callTool('t', 'finish', { ms: 60_000 }, { task: true });
    const waiting = long.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    await Promise.all([long.cancel(), long.cancel()]);
    expect(requestsFor(fixture.log(), 'tasks/cancel', long.taskId!)).toBe(1);
    expect(await waiting).toMatchObject({ code: 'TOOL_OUTCOME_UNKNOWN' });
    // cancellation is cooperative: the handle asks the server what became of the task
    expect(await long.status()).toMatchObject({ status: 'cancelled' });
  });

  it('on a legacy connection: a task answer is an invalid response; a tool that requires tasks is hidden and refused unsent', async () => {
    const invalid = await rejection(legacy.callTool('t', 'finish', { ms: 10 }));
    expect(McpError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({
      code: 'MCP_OPERATION_FAILED',
      details: { reason: 'invalid-response', method: 'tools/call' },
    });
    expect(legacy.getConnection('t')).toMatchObject({ era: 'legacy' });

    const before = fixture.log().length;
    const refused = await rejection(legacy.callTool('t', 'needs_task', { ms: 10 }));
    expect(refused).toMatchObject({
      code: 'MCP_EXTENSION_UNSUPPORTED',
      details: { reason: 'not-sent', extension: 'tasks' },
    });
    expect(
      fixture
        .log()
        .slice(before)
        .filter((r) => r.tool === 'needs_task'),
    ).toEqual([]);

    // the model's catalog: hidden on a legacy connection, offered where tasks are taken
    const legacyModel = scriptedModel([{ text: 'ok' }]);
    const legacyAgent = createAgent({
      model: legacyModel,
      mcpServers: { t: fixture.config },
      mcp: { strictConfig: true, protocol: { mode: { pin: '2025-11-25' } } },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
    });
    try {
      await legacyAgent.send('hello');
      const names = legacyModel.requests[0]!.tools!.map((t) => t.name);
      expect(names).toContain('mcp__t__finish');
      expect(names).not.toContain('mcp__t__needs_task');
    } finally {
      await legacyAgent.close();
    }
    const modern = model.requests.at(-1)!.tools!.map((t) => t.name);
    expect(modern).toContain('mcp__t__needs_task');
  });

  it('every task the fixture answered where the extension was declared reached an end: a terminal status polled, or a cancel (the one left to follow after a close excepted); over HTTP every tasks/* request named its task in Mcp-Name', async () => {
    await Promise.all([agent.awaitIdle(), manager.close()]);
    const log = fixture.log();
    const created = log
      .filter((r) => r.method === 'task-created' && r.declared === true)
      .map((r) => r.taskId!);
    expect(created.length).toBeGreaterThan(10);
    expect(unendedTasks(log)).toEqual(leftRunning ? [leftRunning] : []);
    // the fixture answers a tasks/* POST whose Mcp-Name is not its task id with 400 and logs
    // it: none in the whole file, polls, answers and cancels included
    expect(log.filter((r) => r.method === 'header-mismatch')).toEqual([]);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
      expect(log.filter((r) => r.method === method).length).toBeGreaterThan(0);
  });
});
