/**
 * Tool search (docs/guide/tool-search.md), offline: an in-process MCP server with 40 tools is
 * more than the run's budget for tool definitions, so the model is shown `tool_search`
 * instead of them. It searches, the tools it found are sent from its next turn on, and it
 * calls one.
 *
 *   npx tsx examples/tool-search.ts
 */
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../src/index.js';
import type { ModelRequest } from '../src/index.js';

const areas = ['billing', 'crm', 'shipping', 'hr', 'support'];
const verbs = ['create', 'list', 'update', 'delete', 'export', 'archive', 'import', 'count'];
const tools = areas.flatMap((area) =>
  verbs.map((verb) =>
    sdkTool(`${verb}_${area}_record`, `${verb} a ${area} record.`, { id: z.string() }, () => ({
      content: [{ type: 'text', text: `${verb} ${area}: ok` }],
    })),
  ),
);
tools.push(
  sdkTool(
    'refund_payment',
    'Refunds a customer payment, in part or in full.',
    { paymentId: z.string(), amountEur: z.number() },
    ({ paymentId, amountEur }) => ({
      content: [{ type: 'text', text: `refunded ${amountEur} EUR of ${paymentId}` }],
    }),
  ),
);

const shown = (req: ModelRequest) => req.tools.map((t) => t.name).join(', ');
const model = scriptedModel([
  { toolCalls: [{ name: 'tool_search', arguments: { query: 'refund a customer payment' } }] },
  (req) => {
    const last = req.messages.at(-1);
    console.log(`[search result]\n${last?.role === 'tool' ? last.content : ''}`);
    const args = { paymentId: 'pay_81', amountEur: 20 };
    return { toolCalls: [{ name: 'mcp__billing__refund_payment', arguments: args }] };
  },
  { text: 'Refunded 20 EUR.' },
]);

const agent = createAgent({
  model,
  mcpServers: { billing: { type: 'sdk', server: createSdkMcpServer({ name: 'billing', tools }) } },
  mcp: {
    strictConfig: true,
    toolSearch: 'auto', // the default: search when the definitions are over the budget
    toolSearchBudgetTokens: 500, // default: 10% of context.maxTokens
    alwaysLoad: ['mcp__billing__list_billing_record'], // always sent
  },
  policy: { allow: ['mcp_connect:*', 'mcp__billing__*'] },
});

try {
  const reply = await agent.send('Refund 20 EUR of payment pay_81.');
  console.log(`[turn 1 tools] ${shown(model.requests[0]!)}`);
  console.log(`[turn 2 tools] ${shown(model.requests[1]!)}`);
  console.log(`[answer] ${reply.text}`);
} finally {
  await agent.close();
}
