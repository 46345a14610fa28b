/**
 * MCP without an agent (docs/guide/direct-calls.md), offline: `McpClientManager` from
 * `muster-agent/mcp` starts server-everything from node_modules over stdio, lists its tools,
 * calls one with progress, shows the argument check that stops a bad call before it is sent,
 * adds an in-process server at runtime, and closes everything.
 *
 *   npx tsx examples/direct-calls.ts
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { createSdkMcpServer, MusterError, sdkTool } from '../src/index.js';
import { McpClientManager } from '../src/mcp/mcp-entry.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const everything = resolve(dirname(manifest), Object.values(bin)[0]!);

const manager = new McpClientManager(
  { everything: { command: process.execPath, args: [everything, 'stdio'] } },
  {
    strictConfig: true, // no .muster/mcp.json files: only the servers above
    onEvent: (ev) => {
      if (ev.type === 'mcp.server.status') console.log(`[event] ${ev.server} ${ev.status}`);
    },
  },
);
try {
  await manager.connectAll();
  const tools = await manager.listTools('everything');
  console.log(
    `[tools] ${tools.length}, e.g. ${tools
      .map((t) => t.name)
      .slice(0, 3)
      .join(', ')}`,
  );

  const sum = await manager.callTool('everything', 'get-sum', { a: 2, b: 40 });
  console.log(`[get-sum] ${sum.content[0]?.type === 'text' ? sum.content[0].text : ''}`);

  await manager.callTool(
    'everything',
    'trigger-long-running-operation',
    { duration: 0.2, steps: 2 },
    { timeoutMs: 10_000, onProgress: (p) => console.log(`[progress] ${p.progress}/${p.total}`) },
  );

  try {
    await manager.callTool('everything', 'get-sum', { a: 2, b: 'forty' });
  } catch (err) {
    if (MusterError.isInstance(err)) console.log(`[refused] ${err.code}: not sent`);
  }

  const notes = createSdkMcpServer({
    name: 'notes',
    tools: [
      sdkTool('count', 'Counts notes.', { tag: z.string() }, () => ({
        content: [{ type: 'text', text: '3' }],
      })),
    ],
  });
  await manager.register('notes', { type: 'sdk', server: notes });
  console.log(
    `[servers] ${manager
      .list()
      .map((s) => `${s.name}: ${s.status}`)
      .join(', ')}`,
  );
} finally {
  await manager.close();
}
