/**
 * `query()` (docs/guide/query.md), offline: the message stream of query()-style SDKs over a
 * Muster agent. An in-process tool server, a pre-approved read tool, a `canUseTool` callback
 * that refuses a write, and the messages printed as they come.
 *
 *   npx tsx examples/query.ts
 */
import { z } from 'zod';
import { createSdkMcpServer, scriptedModel, sdkTool } from '../src/index.js';
import { query } from '../src/query/index.js';

const crm = createSdkMcpServer({
  name: 'crm',
  tools: [
    sdkTool('get_orders', "Lists a user's orders.", { userId: z.string() }, ({ userId }) => ({
      content: [{ type: 'text', text: `[{"userId":"${userId}","id":"o-1","status":"paid"}]` }],
    })),
    sdkTool('cancel_order', 'Cancels an order.', { id: z.string() }, () => ({ content: [] })),
  ],
});

const model = scriptedModel([
  { toolCalls: [{ name: 'mcp__crm__get_orders', arguments: { userId: 'user-123' } }] },
  { toolCalls: [{ name: 'mcp__crm__cancel_order', arguments: { id: 'o-1' } }] },
  { text: 'user-123 has one paid order, o-1; I was not allowed to cancel it.' },
]);

const q = query({
  prompt: 'Cancel the paid orders of user-123.',
  options: {
    model,
    mcpServers: { crm },
    strictMcpConfig: true,
    allowedTools: ['mcp__crm__get_orders'], // pre-approved
    canUseTool: async (toolName) => ({ behavior: 'deny', message: `${toolName}: ask a person` }),
  },
});
for await (const msg of q) {
  if (msg.type === 'system' && msg.subtype === 'init')
    console.log(`[init] ${msg.tools.join(', ')}`);
  if (msg.type === 'assistant')
    for (const block of msg.message.content)
      if (block.type === 'tool_use') console.log(`[tool_use] ${block.name}`);
      else if (block.type === 'text') console.log(`[text] ${block.text}`);
  if (msg.type === 'user' && Array.isArray(msg.message.content))
    for (const block of msg.message.content)
      if (block.type === 'tool_result') console.log(`[tool_result] ${block.content}`);
  if (msg.type === 'result') {
    console.log(`[result] ${msg.subtype} after ${msg.num_turns} turns: ${msg.result}`);
    console.log(`[denied] ${msg.permission_denials.map((d) => d.tool_name).join(', ')}`);
    break;
  }
}
await q.close();
