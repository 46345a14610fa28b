import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool, tool } from '../../src/index.js';

const server = (...tools: string[]) =>
  createSdkMcpServer({
    name: 'x',
    tools: tools.map((t) =>
      sdkTool(t, t, { v: z.string().optional() }, () => ({ content: [{ type: 'text', text: t }] })),
    ),
  });

const host = tool({
  name: 'host_tool',
  description: 'A host tool.',
  input: z.object({}),
  execute: () => 'ok',
});

describe('tool order', () => {
  it('is the same on every run, whatever order the servers connected in', async () => {
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = createAgent({
      model,
      tools: [host],
      mcp: { strictConfig: true },
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      mcpServers: {
        beta: { type: 'sdk', server: server('zeta', 'eta') },
        alpha: { type: 'sdk', server: server('two', 'one') },
      },
    });
    try {
      await agent.send('x');
      // alpha reconnects after beta: its tools are published again, after beta's
      await agent.mcp.update('alpha', { type: 'sdk', server: server('two', 'one') });
      await agent.send('y');
      const names = model.requests.map((r) => r.tools.map((t) => t.name));
      const expected = [
        'host_tool',
        'mcp__alpha__two',
        'mcp__alpha__one',
        'mcp__beta__zeta',
        'mcp__beta__eta',
        'context',
      ];
      expect(names).toEqual([expected, expected]);
    } finally {
      await agent.close();
    }
  });
});
