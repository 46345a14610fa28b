/**
 * MCP servers (docs/guide/mcp-servers.md), offline: an in-process server, server-memory from
 * npm over stdio, and one that cannot start; the statuses, then a run that uses both tools.
 *
 *   npx tsx examples/mcp-servers.ts
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../src/index.js';

// server-memory's entry file, from node_modules (never downloaded)
const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-memory/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const memoryServer = resolve(dirname(manifest), Object.values(bin)[0]!);

const lookupOrder = sdkTool(
  'lookup_order',
  'Finds an order by id.',
  { id: z.string() },
  ({ id }) => ({ content: [{ type: 'text', text: `order ${id}: shipped` }] }),
  { annotations: { readOnlyHint: true } },
);

const agent = createAgent({
  model: scriptedModel([
    {
      toolCalls: [
        { name: 'mcp__crm__lookup_order', arguments: { id: 'A-7' } },
        { name: 'mcp__memory__read_graph', arguments: {} },
      ],
    },
    { text: 'done' },
  ]),
  mcpServers: {
    crm: createSdkMcpServer({ name: 'crm', tools: [lookupOrder] }), // in-process
    memory: { command: process.execPath, args: [memoryServer] }, // stdio (the default type)
    broken: { command: process.execPath, args: ['no-such-server.js'], connectTimeoutMs: 5000 },
  },
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__crm', 'mcp__memory__read_*'] },
});

try {
  await agent.initialize(); // connect now (a run would do it first anyway)
  for (const s of agent.mcp.list()) {
    const error = s.error ? ` ${s.error.code}: ${s.error.message}` : '';
    console.log(`${s.name} (${s.type}): ${s.status}, ${s.tools.length} tools${error}`);
  }
  for await (const ev of agent.run({ input: 'Look up order A-7.' }))
    if (ev.type === 'tool.completed') console.log(`${ev.toolName} -> ${ev.content.slice(0, 40)}`);
} finally {
  await agent.close();
}
