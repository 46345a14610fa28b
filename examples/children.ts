/**
 * Child agents and `asTool()` (docs/guide/children.md), offline: a root agent owns an
 * in-process MCP server; a researcher child sees only its search tool; a lead child calls the
 * researcher as a tool. The researcher's run is forwarded into the lead's event stream under
 * its own run id, and the root's usage counts both runs.
 *
 *   npx tsx examples/children.ts
 */
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../src/index.js';
import type { ModelRequest } from '../src/index.js';

const lastResult = (req: ModelRequest) => {
  const last = req.messages.at(-1);
  return last?.role === 'tool' ? last.content : '';
};

const docs = createSdkMcpServer({
  name: 'docs',
  tools: [
    sdkTool('search', 'Searches the docs.', { query: z.string() }, ({ query }) => ({
      content: [{ type: 'text', text: `v2 renamed '${query}' to 'start'.` }],
    })),
    sdkTool('delete_page', 'Deletes a page.', { page: z.string() }, () => ({ content: [] })),
  ],
});

const root = createAgent({
  model: scriptedModel([]), // the children bring their own models here
  mcpServers: { docs: { type: 'sdk', server: docs } },
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__docs__search', 'researcher'] },
});

const researcherModel = scriptedModel([
  { toolCalls: [{ name: 'mcp__docs__search', arguments: { query: 'begin' } }] },
  (req) => ({ text: `Found it: ${lastResult(req)}` }),
]);
const researcher = root.child({
  system: 'You research questions in the docs.',
  model: researcherModel,
  policy: { visibleTools: ['mcp__docs__search'] }, // narrows what the root shows
});

const lead = root.child({
  model: scriptedModel([
    { toolCalls: [{ name: 'researcher', arguments: { prompt: 'What changed in v2?' } }] },
    (req) => ({ text: `The researcher says: ${lastResult(req)}` }),
  ]),
  tools: [researcher.asTool({ name: 'researcher', description: 'Answers from the docs.' })],
});

try {
  const runs = new Map<string, string>();
  for await (const ev of lead.run({ input: 'What changed in v2?' })) {
    if (ev.type === 'session.started') runs.set(ev.runId, runs.size === 0 ? 'lead' : 'researcher');
    const who = runs.get(ev.runId) ?? '?';
    if (ev.type === 'tool.completed') console.log(`[${who}] ${ev.toolName} -> ${ev.content}`);
    if (ev.type === 'session.completed') console.log(`[${who}] done: ${ev.content}`);
  }
  const shown = researcherModel.requests[0]!.tools.map((t) => t.name);
  console.log(`[researcher was shown] ${shown.join(', ')}`);
  console.log(`[root usage] ${root.usage.totalTokens} tokens over both runs`);
} finally {
  await root.close(); // closes the children's runs too
}
