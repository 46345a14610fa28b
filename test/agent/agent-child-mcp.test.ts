import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { Usage } from '../../src/index.js';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

// Connections belong to the root: a child's policy never decides mcp_connect (so a child's
// deny cannot mark a shared server disabled for the root). Sampling requests a server makes
// during a child's run pass the child's layer and then the root's; they are answered by the
// root's sampling handler (here the root's own model) and count toward the child's run.

const u = (n: number): Usage => ({ inputTokens: n, outputTokens: 2 * n, totalTokens: 3 * n });
const SAMPLE = {
  name: 'mcp__everything__trigger-sampling-request',
  arguments: { prompt: 'hello', maxTokens: 50 },
};

describe('child agents and MCP connections and sampling', () => {
  it("connects by the root's policy only; sampling passes both layers", async () => {
    const rootModel = scriptedModel([{ text: 'sampled', usage: u(100) }]);
    const root = createAgent({
      model: rootModel,
      mcp: { strictConfig: true, handlers: { sampling: 'agent' } },
      mcpServers: { everything: everythingStdioConfig() },
      policy: {
        allow: ['mcp_connect:everything', 'mcp__everything'],
        approve: (req) => req.capability === 'mcp_sampling:everything',
      },
    });
    const strict = root.child({
      model: scriptedModel([
        { toolCalls: [SAMPLE], usage: u(1) },
        { text: 'strict done', usage: u(0) },
      ]),
      policy: { deny: ['mcp_connect:*', 'mcp_sampling:everything'] },
    });
    const open = root.child({
      model: scriptedModel([
        { toolCalls: [SAMPLE], usage: u(1) },
        { text: 'open done', usage: u(2) },
      ]),
    });
    try {
      // the first run of the family is the child's: it connects, by the root's policy
      const first = await collect(strict.run({ input: 'sample' }));
      expect(first.error).toBeUndefined();
      expect(root.mcp.list()[0]!.status).toBe('connected');
      expect(ofType(first.events, 'tool.completed')[0]).toMatchObject({ isError: true });
      expect(rootModel.requests).toHaveLength(0);

      const second = await collect(open.run({ input: 'sample' }));
      expect(second.error).toBeUndefined();
      expect(ofType(second.events, 'sampling.requested')).toHaveLength(1);
      expect(ofType(second.events, 'tool.completed')[0]).toMatchObject({ isError: false });
      expect(rootModel.requests).toHaveLength(1);
      // the sampled answer counts toward the child's run and the child's usage
      expect(ofType(second.events, 'session.completed')[0]!.usage).toEqual(u(103));
      expect(open.usage).toEqual(u(103));
      expect(strict.usage).toEqual(u(1));
      expect(root.usage).toEqual(u(104));
    } finally {
      await root.close();
    }
  }, 60_000);
});
