import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../../src/index.js';
import type { Agent } from '../../../src/index.js';
import { collect, ofType } from '../../support/run-helpers.js';
import { requestsFor, startTasksFixture } from './tasks-fixture.js';
import type { TasksFixture } from './tasks-fixture.js';

// A call that became a task (SPEC 15.3) when the run's budget runs out (SPEC 15.4): the
// abort of the budget goes down the Tasks client's own abort path, so the fixture process (over
// real stdio) gets exactly one tasks/cancel, and the call's outcome is unknown.

describe('a task in flight when the budget runs out', () => {
  let fixture: TasksFixture;
  let agent: Agent;
  const model = scriptedModel([
    { toolCalls: [{ name: 'mcp__t__finish', arguments: { ms: 60_000, text: 'late' } }] },
    { text: 'never asked' },
  ]);

  beforeAll(async () => {
    fixture = await startTasksFixture('stdio');
    agent = createAgent({
      model,
      mcpServers: { t: fixture.config },
      mcp: { strictConfig: true, tasks: { minPollIntervalMs: 25, maxPollIntervalMs: 100 } },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
    });
    // connected before the run: its whole budget is for the call
    await agent.initialize();
  });

  afterAll(async () => {
    await agent?.close();
    await fixture?.stop();
  });

  it('gets one tasks/cancel, and the call is TOOL_OUTCOME_UNKNOWN', async () => {
    const { events, error } = await collect(
      agent.run({ input: 'long work', limits: { maxDurationMs: 600 } }),
    );
    expect(error).toMatchObject({ code: 'BUDGET_EXHAUSTED', details: { limit: 'maxDurationMs' } });
    expect(model.requests).toHaveLength(1);
    const taskId = ofType(events, 'tool.task')[0]!.taskId;
    expect(ofType(events, 'tool.completed')[0]).toMatchObject({
      toolName: 'mcp__t__finish',
      errorCode: 'TOOL_OUTCOME_UNKNOWN',
    });
    // the cancel is sent in the background: once it shows, one more round trip through the
    // fixture lets a second one show too, if there were one
    await expect.poll(() => requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(1);
    await agent.mcp.callTool('t', 'instant', { text: 'sync' });
    expect(requestsFor(fixture.log(), 'tasks/cancel', taskId)).toBe(1);
  }, 30_000);
});
