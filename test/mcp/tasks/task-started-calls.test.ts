import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySessionStore, createAgent, scriptedModel } from '../../../src/index.js';
import type { Agent, ModelRequest, ToolResultMessage } from '../../../src/index.js';
import { collect, ofType } from '../../support/run-helpers.js';
import { startTasksFixture } from './tasks-fixture.js';
import type { TasksFixture } from './tasks-fixture.js';

// A session records each call's start once (`SessionState.startedCalls`): a task call parked
// and resumed again and again polls its stored task on each resume, and no resume appends its
// id a second time (the list would grow by one entry per poll of a task polled for days).

describe("a task call's start is recorded once, however often its task is resumed", () => {
  let fixture: TasksFixture;
  beforeAll(async () => {
    fixture = await startTasksFixture('stdio');
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  function agentOn(store: MemorySessionStore, parkAfterMs?: number): Agent {
    const turn = (request: ModelRequest) => {
      const result = request.messages.findLast((m): m is ToolResultMessage => m.role === 'tool');
      if (!result)
        return {
          toolCalls: [{ name: 'mcp__t__finish', arguments: { ms: 60_000 }, id: 'call_task' }],
        };
      return { text: `got: ${result.content}` };
    };
    return createAgent({
      model: scriptedModel(Array.from({ length: 5 }, () => turn)),
      mcpServers: { t: fixture.config },
      mcp: {
        strictConfig: true,
        tasks: {
          minPollIntervalMs: 25,
          maxPollIntervalMs: 100,
          ...(parkAfterMs !== undefined ? { parkAfterMs } : {}),
        },
      },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      sessionStore: store,
    });
  }

  it('a task parked and resumed 4 times, then finished: startedCalls holds its call id once', async () => {
    const store = new MemorySessionStore();
    const sessionId = 'task-started-once';
    const first = agentOn(store, 1);
    let taskId: string;
    try {
      const sent = await first.send('Do the work.', { sessionId });
      expect(sent.status).toBe('parked');
      taskId = sent.waits![0]!.task!.taskId;
    } finally {
      await first.close();
    }
    const RESUMES = 4;
    for (let i = 0; i < RESUMES; i++) {
      const again = agentOn(store, 1);
      try {
        const { events, error } = await collect(again.resume(sessionId));
        expect(error).toBeUndefined();
        expect(ofType(events, 'session.parked')[0]!.waits).toMatchObject([
          { kind: 'task', task: { taskId, status: 'working' } },
        ]);
      } finally {
        await again.close();
      }
      expect((await store.get(sessionId))!.startedCalls).toEqual(['call_task']);
    }
    fixture.finish(taskId);
    const last = agentOn(store);
    try {
      const { events, error } = await collect(last.resume(sessionId));
      expect(error).toBeUndefined();
      expect(ofType(events, 'session.completed')[0]).toMatchObject({ content: 'got: done' });
    } finally {
      await last.close();
    }
    expect((await store.get(sessionId))!.startedCalls).toEqual(['call_task']);
  });
});
