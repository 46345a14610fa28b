import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { everythingStdioConfig, stdioConfig } from '../support/mcp-fixtures.js';
import { collect, deferred, ofType } from '../support/run-helpers.js';

// Usage of sampling requests answered by the agent's own model (server-everything over real
// stdio) is stored with the session when the run fails, not only when it completes.

describe('agent sampling usage', () => {
  it('a failed run still stores the usage of the sampling it answered', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: 'mcp__everything__trigger-sampling-request',
            arguments: { prompt: 'hello', maxTokens: 50 },
          },
        ],
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      },
      { text: 'sampled', usage: { inputTokens: 100, outputTokens: 200, totalTokens: 300 } },
      // no third turn: the scripted model fails the run with MODEL_RESPONSE_INVALID
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      mcp: { strictConfig: true, handlers: { sampling: 'agent' } },
      mcpServers: { everything: everythingStdioConfig() },
      policy: {
        allow: ['mcp_connect:everything', 'mcp__everything'],
        approve: (req) => req.capability === 'mcp_sampling:everything',
      },
    });
    try {
      const sessionId = 'sampling-usage-failed';
      const { events, error } = await collect(agent.run({ input: 'sample', sessionId }));
      expect(error).toMatchObject({ code: 'MODEL_RESPONSE_INVALID' });
      expect(ofType(events, 'sampling.requested')).toHaveLength(1);
      expect(ofType(events, 'tool.completed')[0]!.isError).toBe(false);
      const stored = (await agent.sessions.get(sessionId))!;
      expect(stored.status).toBe('failed');
      // the first turn's own usage plus the sampled answer's
      expect(stored.usage).toEqual({ inputTokens: 101, outputTokens: 202, totalTokens: 303 });
    } finally {
      await agent.close();
    }
  }, 30_000);

  it('a request attributed to a sibling call that ends first still counts toward the run', async () => {
    // sibling-sampling-server: `sample` asks for sampling while `quick` (the session's most
    // recent call, so the one the request is attributed to) is in flight; the approval is
    // held until `quick` has completed, so the answer arrives after that call ended
    const quickDone = deferred();
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__s__sample', arguments: {} },
          { name: 'mcp__s__quick', arguments: {} },
        ],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      },
      { text: 'sampled answer', usage: { inputTokens: 100, outputTokens: 200, totalTokens: 300 } },
      { text: 'done', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
    ]);
    const agent = createAgent({
      model,
      modelName: 'scripted',
      // server-to-client requests during a call are the legacy era's
      mcp: { strictConfig: true, protocol: { mode: 'legacy' }, handlers: { sampling: 'agent' } },
      mcpServers: { s: stdioConfig('sibling-sampling-server.mjs') },
      policy: {
        allow: ['mcp_connect:s', 'mcp__s'],
        approve: async (req) => {
          if (req.capability !== 'mcp_sampling:s') return false;
          await quickDone.promise;
          return true;
        },
      },
      observability: {
        onEvent: (e) => {
          if (e.type === 'tool.completed' && e.toolName === 'mcp__s__quick') quickDone.resolve();
        },
      },
    });
    try {
      const sessionId = 'sampling-usage-sibling';
      const { events, error } = await collect(agent.run({ input: 'sample', sessionId }));
      expect(error).toBeUndefined();
      const requested = ofType(events, 'sampling.requested');
      expect(requested).toHaveLength(1);
      // the request was attributed to `quick`, which ended before the answer came
      const quick = ofType(events, 'tool.called').find((e) => e.toolName === 'mcp__s__quick')!;
      expect(requested[0]).toMatchObject({ callId: quick.callId });
      expect(
        ofType(events, 'tool.completed')
          .map((e) => e.content)
          .sort(),
      ).toEqual(['quick', 'sampled: sampled answer']);
      const spent = { inputTokens: 102, outputTokens: 202, totalTokens: 304 };
      expect(ofType(events, 'session.completed')[0]!.usage).toEqual(spent);
      expect((await agent.sessions.get(sessionId))!.usage).toEqual(spent);
      expect(agent.usage).toEqual(spent);
    } finally {
      await agent.close();
    }
  }, 30_000);
});
