import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

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
});
