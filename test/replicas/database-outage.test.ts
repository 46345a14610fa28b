import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../../src/index.js';
import type { ModelRequest, SessionState, ToolResultMessage } from '../../src/index.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { collect, deferred } from '../support/run-helpers.js';
import { createThrowawayPostgres } from '../support/throwaway-postgres.js';
import type { ThrowawayPostgres } from '../support/throwaway-postgres.js';

let server: ThrowawayPostgres | undefined;
afterAll(() => server?.destroy());

describe('a PostgreSQL server stopped mid-run (a throwaway cluster, never the shared one)', () => {
  it('fails the run with SESSION_STORE_FAILED; once it is back, resume finishes with nothing lost', async () => {
    server = await createThrowawayPostgres();
    server.start();
    const executions = new Map<string, number>();
    const inSecond = deferred();
    const letSecondFinish = deferred();
    const slow = tool({
      name: 'slow',
      description: 'A slow tool.',
      input: z.object({}),
      execute: async (_i, ctx) => {
        executions.set(ctx.callId, (executions.get(ctx.callId) ?? 0) + 1);
        if (ctx.callId === 'call_1') {
          inSecond.resolve();
          await letSecondFinish.promise;
        }
        return 'slow done';
      },
    });
    const turn = (request: ModelRequest) => {
      const n = request.messages.filter((m) => m.role === 'assistant').length;
      if (n < 2) return { toolCalls: [{ name: 'slow', arguments: {}, id: `call_${n}` }] };
      return { text: 'finished' };
    };
    const options = {
      tools: [slow],
      policy: { allow: ['*'] },
      sessionLeaseMs: 3_000,
    };
    const store = new PostgresSessionStore({ connectionString: server.url });
    const agent = createAgent({
      ...options,
      model: scriptedModel(Array.from({ length: 5 }, () => turn)),
      sessionStore: store,
    });
    const run = collect(agent.run({ input: 'work', sessionId: 'outage' }));
    await inSecond.promise; // the first result is committed, the second call runs
    const before = (await store.get('outage')) as SessionState;
    server.stop();
    letSecondFinish.resolve();
    const { error } = await run; // the second result cannot be committed
    expect(error?.code).toBe('SESSION_STORE_FAILED');
    await agent.close();
    await store.close();

    server.start();
    const store2 = new PostgresSessionStore({ connectionString: server.url });
    const again = createAgent({
      ...options,
      model: scriptedModel(Array.from({ length: 5 }, () => turn)),
      sessionStore: store2,
    });
    let resumed = await collect(again.resume('outage'));
    // the failed run could not release its lease with the server down: it expires by itself
    for (let i = 0; resumed.error?.code === 'SESSION_ALREADY_RUNNING' && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      resumed = await collect(again.resume('outage'));
    }
    expect(resumed.error).toBeUndefined();
    const after = (await store2.get('outage'))!;
    expect(after.status).toBe('completed');
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect(before.startedCalls).toEqual(['call_0', 'call_1']);
    const second = after.messages.find(
      (m): m is ToolResultMessage => m.role === 'tool' && m.callId === 'call_1',
    )!;
    expect(second.content).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
    expect([...executions.values()]).toEqual([1, 1]);
    await again.close();
    await store2.close();
  });
});
