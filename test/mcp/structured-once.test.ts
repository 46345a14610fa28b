/**
 * item-07: structured data once. server-filesystem (from npm, over stdio) answers
 * `read_text_file` with the file as text and again as `structuredContent: { content }`. The
 * model reads the file once, as text; an archived read pages the text and keeps the whole result;
 * a direct call returns the whole result as the server sent it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { ModelRequest } from '../../src/index.js';
import { filesystemStdioConfig } from '../support/mcp-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'muster-structured-once-'));
// 10 KB and 40 KB of text with quotes, backslashes and newlines: what JSON would escape
const line = 'SKU-0042 "blue mug" C:\\stock\\mugs 12 on hand\n';
const small = line.repeat(Math.ceil(10_000 / line.length));
const large = line.repeat(Math.ceil(40_000 / line.length));
writeFileSync(join(dir, 'small.txt'), small);
writeFileSync(join(dir, 'large.txt'), large);

function lastToolMessage(req: ModelRequest): string {
  const last = req.messages.at(-1);
  if (last?.role !== 'tool') throw new Error('the last message is not a tool result');
  return last.content;
}

const seen: string[] = [];
const agent = createAgent({
  model: scriptedModel([
    {
      toolCalls: [{ name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'small.txt') } }],
    },
    (req) => {
      seen.push(lastToolMessage(req));
      return {
        toolCalls: [
          { name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'large.txt') } },
        ],
      };
    },
    (req) => {
      seen.push(lastToolMessage(req));
      return { text: 'read both' };
    },
  ]),
  mcpServers: { fs: filesystemStdioConfig(dir) },
  policy: { allow: ['mcp_connect:fs', 'mcp__fs__read_text_file'] },
});

beforeAll(async () => {
  const result = await agent.send('Read both files.', { sessionId: 'files' });
  expect(result.status).toBe('completed');
}, 60_000);

afterAll(async () => {
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('item-07: structured data once', () => {
  it('gives the model a 10 KB file once, as its text, not as escaped JSON', () => {
    expect(seen[0]).toBe(small);
    expect(Buffer.byteLength(seen[0]!)).toBeLessThan(10_100);
  });

  it('pages an archived file from its text and keeps the whole result in the archive', async () => {
    const preview = seen[1]!;
    expect(preview.startsWith(large.slice(0, 1000))).toBe(true);
    expect(preview).not.toContain('\\"blue mug\\"');
    const items = await agent.sessions.listArchive('files');
    // the whole result is archived first, so that room for it never evicts the text
    const refs = items
      .map((i) => ({ ref: i.ref, mimeType: i.mimeType, bytes: i.totalBytes }))
      .reverse();
    expect(refs).toHaveLength(2);
    expect(refs[0]!.bytes).toBe(Buffer.byteLength(large));
    const text = await agent.sessions.readArchive('files', refs[0]!.ref, { length: 1000 });
    expect(text?.text).toBe(large.slice(0, 1000));
    // the whole result: the content block and structuredContent, as JSON
    expect(refs[1]!.mimeType).toBe('application/json');
    let whole = '';
    for (let offset = 0; offset < refs[1]!.bytes; ) {
      const page = await agent.sessions.readArchive('files', refs[1]!.ref, { offset });
      whole += page!.text;
      offset = page!.nextOffset ?? refs[1]!.bytes;
    }
    expect(JSON.parse(whole)).toEqual({
      content: [{ type: 'text', text: large }],
      structuredContent: { content: large },
    });
  });

  it('returns the whole result to a direct call', async () => {
    const result = await agent.mcp.callTool('fs', 'read_text_file', {
      path: join(dir, 'small.txt'),
    });
    expect(result.content).toEqual([{ type: 'text', text: small }]);
    expect(result.structuredContent).toEqual({ content: small });
  });
});
