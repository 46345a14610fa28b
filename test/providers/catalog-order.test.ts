import { describe, expect, it } from 'vitest';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import { collect } from '../support/run-helpers.js';

// Prompt caching needs a stable prefix: the tool definitions a model is sent must come in the
// same order on every run, whatever order the servers connected or refreshed in.

const server = (name: string, tools: string[]) =>
  createSdkMcpServer({
    name,
    tools: tools.map((t) =>
      sdkTool(t, `Tool ${t}.`, {}, async () => ({ content: [{ type: 'text', text: t }] })),
    ),
  });

describe('the tools a model request carries', () => {
  it('are grouped by server (servers by name, each in its own order), the same on every run', async () => {
    const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);
    const agent = createAgent({
      model,
      modelName: 'm',
      mcp: { strictConfig: true },
      // Listed z before a: connection order must not decide the order of the definitions.
      mcpServers: {
        zeta: { type: 'sdk', server: server('zeta', ['write', 'alpha']) },
        able: { type: 'sdk', server: server('able', ['read', 'list']) },
      },
      policy: { allow: ['mcp_connect:*'] },
    });
    try {
      expect((await collect(agent.run({ input: 'a' }))).error).toBeUndefined();
      expect((await collect(agent.run({ input: 'b' }))).error).toBeUndefined();
    } finally {
      await agent.close();
    }
    const [first, second] = model.requests.map((r) => r.tools.map((t) => t.name));
    expect(first).toEqual([
      'mcp__able__read',
      'mcp__able__list',
      'mcp__zeta__write',
      'mcp__zeta__alpha',
      'context',
    ]);
    expect(second).toEqual(first);
  });
});
