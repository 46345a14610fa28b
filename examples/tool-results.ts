/**
 * What the model reads of a tool result (docs/guide/tool-results.md), offline:
 * server-filesystem from npm answers `read_text_file` with the file as text and again as
 * `structuredContent`. The model reads the file once, as text; a direct call gets the whole
 * result; a large file is archived with its whole result kept beside the text.
 *
 *   npx tsx examples/tool-results.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createAgent, scriptedModel } from '../src/index.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const server = resolve(dirname(manifest), Object.values(bin)[0]!);

const dir = mkdtempSync(join(tmpdir(), 'muster-tool-results-'));
const notes = join(dir, 'notes.md');
const big = join(dir, 'big.md');
writeFileSync(notes, '# Notes\n"Ship on Friday," said Ana.\n');
writeFileSync(big, '- a line of a long report\n'.repeat(1000)); // 26 KB: over the 16 KiB threshold

const read = (path: string) => ({ name: 'mcp__fs__read_text_file', arguments: { path } });
const agent = createAgent({
  model: scriptedModel([
    { toolCalls: [read(notes)] },
    (req) => {
      const last = req.messages.at(-1);
      // the file's text as it is: no JSON, no escaped quotes, no second copy
      console.log(`[model reads]\n${last?.role === 'tool' ? last.content : ''}`);
      return { toolCalls: [read(big)] };
    },
    (req) => {
      const last = req.messages.at(-1);
      const text = last?.role === 'tool' ? last.content : '';
      console.log(`[model reads, last line] ${text.split('\n').at(-1)}`);
      return { text: 'done' };
    },
  ]),
  mcpServers: { fs: { command: process.execPath, args: [server, dir] } },
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:fs', 'mcp__fs__read_text_file'] },
});

try {
  await agent.send('Read the notes, then the report.', { sessionId: 'reading' });
  for (const item of await agent.sessions.listArchive('reading'))
    console.log(`[archived] ${item.ref.slice(0, 4)}… ${item.mimeType}, ${item.totalBytes} bytes`);
  const direct = await agent.mcp.callTool('fs', 'read_text_file', { path: notes });
  console.log(`[direct call] structuredContent: ${JSON.stringify(direct.structuredContent)}`);
} finally {
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
}
