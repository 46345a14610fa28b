import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, createAgent, scriptedModel } from '../../../src/index.js';
import type { Agent, ModelRequest, ToolResultMessage } from '../../../src/index.js';
import { collect, ofType } from '../../support/run-helpers.js';
import { requestsFor, startTasksFixture, unendedTasks } from './tasks-fixture.js';
import type { LoggedRequest, TasksFixture } from './tasks-fixture.js';

// Tasks on principals' connections (SPEC 15.3 and 15.4): a server that signs each user in
// (`perPrincipal`, an auth provider of the principal) gets the extension declared on each
// principal's own connection; a call of a principal's run that becomes a task is polled,
// answered and cancelled there, with that principal's credentials, and a task wait records
// the principal, so a resume polls with them too. The tasks fixture over Streamable HTTP logs
// the Authorization header of every `tools/call` and `tasks/*` request.

const token = (principal: string | undefined) => `Bearer token-of-${principal ?? 'nobody'}`;

describe("tasks on a principal's connection", () => {
  let fixture: TasksFixture;
  beforeAll(async () => {
    fixture = await startTasksFixture('http');
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  function agentOn(
    store: MemorySessionStore,
    call: { name: string; arguments: object },
    options: { onTask?: (agent: Agent) => void; elicitations?: number[] } = {},
  ): Agent {
    const turn = (request: ModelRequest) => {
      const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
      if (!result) return { toolCalls: [{ ...call, id: 'call_task' }] };
      return { text: `got: ${result.content}` };
    };
    const agent: Agent = createAgent({
      model: scriptedModel(Array.from({ length: 5 }, () => turn)),
      mcpServers: {
        t: {
          ...(fixture.config as { type: 'http'; url: string }),
          perPrincipal: true,
          auth: {
            type: 'provider',
            provider: (principal: string | undefined) => ({
              token: async () => token(principal).slice('Bearer '.length),
            }),
          },
        },
      },
      mcp: {
        strictConfig: true,
        tasks: { minPollIntervalMs: 25, maxPollIntervalMs: 100 },
        handlers: {
          elicitation: async () => {
            options.elicitations?.push(1);
            return { action: 'accept', content: { ok: true } };
          },
        },
      },
      policy: { allow: ['mcp_connect:t', 'mcp__t__*'] },
      sessionStore: store,
      observability: {
        onEvent: (event) => {
          if (event.type === 'tool.task') options.onTask?.(agent);
        },
      },
    });
    return agent;
  }

  /** The Authorization headers of the `method` requests of `taskId` (HTTP). */
  const authorizations = (log: readonly LoggedRequest[], method: string, taskId: string) =>
    log
      .filter((r) => r.method === 'authorized' && r.of === method && r.taskId === taskId)
      .map((r) => r.authorization);

  it("a principal's call that becomes a task is polled, and its question answered, on that principal's own connection", async () => {
    const elicitations: number[] = [];
    const agent = agentOn(
      new MemorySessionStore(),
      { name: 'mcp__t__ask', arguments: { ms: 20 } },
      { elicitations },
    );
    const before = fixture.log().length;
    try {
      const { events, error } = await collect(agent.run({ input: 'x', principal: 'alice' }));
      expect(error).toBeUndefined();
      expect(ofType(events, 'tool.completed')[0]).toMatchObject({
        isError: false,
        content: 'confirmed {"ok":true}',
      });
      expect(elicitations).toHaveLength(1);
      const taskId = ofType(events, 'tool.task')[0]!.taskId;
      const log = fixture.log().slice(before);
      expect(log.filter((r) => r.method === 'task-created')).toMatchObject([
        { taskId, declared: true },
      ]);
      expect(log.filter((r) => r.method === 'authorized' && r.of === 'tools/call')).toMatchObject([
        { authorization: token('alice') },
      ]);
      const polls = authorizations(log, 'tasks/get', taskId);
      expect(polls.length).toBeGreaterThanOrEqual(2);
      expect(new Set(polls)).toEqual(new Set([token('alice')]));
      expect(authorizations(log, 'tasks/update', taskId)).toEqual([token('alice')]);
    } finally {
      await agent.close();
    }
  });

  it("a principal's run that parks on its task records the principal on the task wait; the resume polls with that principal's credentials, never sends the call again", async () => {
    const store = new MemorySessionStore();
    const sessionId = 'principal-task';
    const finish = { name: 'mcp__t__finish', arguments: { ms: 60_000 } };
    let closing: Promise<void> | undefined;
    const first = agentOn(store, finish, {
      onTask: (agent) => {
        closing ??= agent.close();
      },
    });
    const sent = await first.send('x', { sessionId, principal: 'alice' });
    await closing;
    expect(sent.status).toBe('parked');
    expect(sent.waits).toMatchObject([{ kind: 'task', principal: 'alice', server: 't' }]);
    const taskId = sent.waits![0]!.task!.taskId;
    const pollsBefore = requestsFor(fixture.log(), 'tasks/get', taskId);

    fixture.finish(taskId);
    const second = agentOn(store, finish);
    try {
      const { events, error } = await collect(second.resume(sessionId, { principal: 'alice' }));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.completed')[0]).toMatchObject({ content: 'got: done' });
    } finally {
      await second.close();
    }
    const log = fixture.log();
    expect(requestsFor(log, 'tasks/get', taskId)).toBeGreaterThan(pollsBefore);
    expect(new Set(authorizations(log, 'tasks/get', taskId))).toEqual(new Set([token('alice')]));
    expect(requestsFor(log, 'tasks/cancel', taskId)).toBe(0);
    expect(log.filter((r) => r.method === 'task-created' && r.taskId === taskId)).toHaveLength(1);
  });

  it("an abort of a principal's run cancels its task once, on that principal's connection", async () => {
    const ac = new AbortController();
    const agent = agentOn(
      new MemorySessionStore(),
      { name: 'mcp__t__finish', arguments: { ms: 60_000 } },
      { onTask: () => ac.abort() },
    );
    try {
      const { events, error } = await collect(
        agent.run({ input: 'x', principal: 'bob', signal: ac.signal }),
      );
      expect(error).toMatchObject({ code: 'ABORTED' });
      expect(ofType(events, 'tool.completed')[0]).toMatchObject({
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
      });
      const taskId = ofType(events, 'tool.task')[0]!.taskId;
      await expect.poll(() => requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(1);
      expect(authorizations(fixture.log(), 'tasks/cancel', taskId)).toEqual([token('bob')]);
    } finally {
      await agent.close();
    }
  });

  it('no task was left without an end, and every tasks/* request named its task in Mcp-Name', () => {
    const log = fixture.log();
    expect(log.filter((r) => r.method === 'task-created').length).toBeGreaterThanOrEqual(3);
    expect(unendedTasks(log)).toEqual([]);
    expect(log.filter((r) => r.method === 'header-mismatch')).toEqual([]);
  });
});
