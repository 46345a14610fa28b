/**
 * Muster's offline demo: what it is for, in one run with no network and no API key.
 *
 * - tools from two MCP servers: an in-process one (`createSdkMcpServer`, the `inventory`
 *   tools) and a stdio one installed from npm (`@modelcontextprotocol/server-filesystem`,
 *   launched from node_modules with this Node.js);
 * - one policy for all of them: reading files is allowed, writing one is denied;
 * - a result too large for the model's context is archived, and the model pages it back
 *   with the built-in `context` tool;
 * - the model's text streams as it is written.
 *
 * A scripted model (deterministic, see `scriptedModel`) plays the model.
 *
 *   npm run demo
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { ModelRequest } from '../../src/index.js';
import { printEvent } from './print-events.js';

// -- a stdio MCP server from npm, started from node_modules (never downloaded)
const require = createRequire(import.meta.url);
function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    bin: string | Record<string, string>;
  };
  return resolve(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0]!);
}
const workspace = mkdtempSync(join(tmpdir(), 'muster-demo-'));
writeFileSync(
  join(workspace, 'orders.md'),
  '# Open orders\n\n- 12 x oak shelf (SKU-0840), for Friday\n',
);

// -- an in-process MCP server: the host's own tools, served over MCP without a process
const SKUS = 1000; // 31 KB: over the 16 KiB the model sees at once, so Muster archives it
/** One line of the report: 30 characters and a newline, so line n starts at (n - 1) * 31. */
const reportLine = (i: number): string =>
  `SKU-${String(i + 1).padStart(4, '0')}  on hand: ${String(i === 839 ? 3 : 10 + ((i * 37) % 90)).padStart(2, '0')}  bin: ${String.fromCharCode(65 + (i % 26))}${i % 9}`;
const inventory = createSdkMcpServer({
  name: 'inventory',
  tools: [
    sdkTool(
      'stock_report',
      'The full stock report: one line per SKU, with the quantity on hand.',
      {},
      async () => ({
        content: [
          {
            type: 'text',
            text: Array.from({ length: SKUS }, (_, i) => reportLine(i)).join('\n'),
          },
        ],
      }),
    ),
  ],
});

// -- the scripted model: each turn reads what came back, as a real model would
const lastToolResult = (request: ModelRequest): string =>
  [...request.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';
let ref = '';
const model = scriptedModel([
  {
    text: 'Let me see what is in the workspace and what we have in stock. ',
    toolCalls: [{ name: 'mcp__files__list_directory', arguments: { path: workspace } }],
  },
  {
    toolCalls: [
      { name: 'mcp__files__read_text_file', arguments: { path: join(workspace, 'orders.md') } },
      { name: 'mcp__inventory__stock_report', arguments: {} },
    ],
  },
  (request) => {
    // the report was too large: Muster archived it and left a note with its ref
    ref = /ref=(ref_[A-Za-z0-9_-]+)/.exec(lastToolResult(request))?.[1] ?? 'missing';
    return {
      text: 'The report is long, so Muster archived it; I will page back the line of SKU-0840. ',
      toolCalls: [{ name: 'context', arguments: { ref, offset: 839 * 31, length: 30 } }],
    };
  },
  {
    text: 'Only 3 of SKU-0840 are on hand and 12 are ordered, so I will write a reorder note. ',
    toolCalls: [
      {
        name: 'mcp__files__write_file',
        arguments: { path: join(workspace, 'reorder.md'), content: 'Reorder SKU-0840 x 12\n' },
      },
    ],
  },
  {
    text: 'The policy does not let me write files here, so here is the plan instead: reorder at least 9 oak shelves (SKU-0840) before Friday.',
  },
]);

const agent = createAgent({
  model,
  system: 'You are a stock assistant.',
  mcpServers: {
    inventory: { type: 'sdk', server: inventory },
    files: {
      command: process.execPath,
      args: [binOf('@modelcontextprotocol/server-filesystem'), workspace],
    },
  },
  mcp: { strictConfig: true }, // this demo ignores MCP config files on the machine
  policy: {
    allow: [
      'mcp_connect:*',
      'mcp__inventory__*',
      'mcp__files__list_directory',
      'mcp__files__read_text_file',
      'context',
    ],
    deny: ['mcp__files__write_file'],
  },
});

process.stdout.write(
  'Muster demo (offline): a scripted model, an in-process MCP server and server-filesystem from npm.\n\n',
);
try {
  for await (const ev of agent.run({ input: 'Can we fill the open orders?' })) {
    printEvent(ev, process.stdout);
  }
} finally {
  await agent.close();
  rmSync(workspace, { recursive: true, force: true });
}
