import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { AgentOptions, ModelRequest, ToolResultMessage } from '../../src/index.js';
import { bigText } from '../fixtures/mcp/fixture-data.mjs';
import { filesystemStdioConfig, memoryStdioConfig, stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

const open = (extra: Partial<AgentOptions>): AgentOptions => ({
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__*', 'context'] },
  ...extra,
});
const lastTool = (req: ModelRequest) =>
  [...req.messages].reverse().find((m) => m.role === 'tool') as ToolResultMessage;

describe('MCP fixtures through the agent', () => {
  it('one run mixes server-filesystem on a temp dir, server-memory, and an in-process server', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'muster-fs-'));
    writeFileSync(join(dir, 'notes.txt'), 'remember the milk');
    const memoryFile = join(mkdtempSync(join(tmpdir(), 'muster-mem-')), 'memory.jsonl');
    const local = createSdkMcpServer({
      name: 'local',
      tools: [
        sdkTool(
          'shout',
          'Upper-cases text.',
          { text: z.string() },
          ({ text }: { text: string }) => ({
            content: [{ type: 'text', text: text.toUpperCase() }],
          }),
        ),
      ],
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__fs__read_text_file', arguments: { path: join(dir, 'notes.txt') } },
        ],
      },
      (req) => ({
        toolCalls: [
          { name: 'mcp__local__shout', arguments: { text: lastTool(req).content } },
          {
            name: 'mcp__memory__create_entities',
            arguments: {
              entities: [{ name: 'milk', entityType: 'errand', observations: ['buy'] }],
            },
          },
        ],
      }),
      { text: 'done' },
    ]);
    const agent = createAgent(
      open({
        model,
        mcpServers: {
          fs: filesystemStdioConfig(dir),
          memory: memoryStdioConfig(memoryFile),
          local: { type: 'sdk', server: local },
        },
      }),
    );
    try {
      const { events, error } = await collect(agent.run({ input: 'x' }));
      expect(error).toBeUndefined();
      const done = new Map(ofType(events, 'tool.completed').map((c) => [c.toolName, c]));
      expect(done.get('mcp__fs__read_text_file')?.content).toContain('remember the milk');
      expect(done.get('mcp__local__shout')?.content).toContain('REMEMBER THE MILK');
      expect(done.get('mcp__memory__create_entities')?.isError).toBe(false);
      expect(readFileSync(memoryFile, 'utf8')).toContain('"name":"milk"');
      expect(agent.mcp.list().map((s) => [s.name, s.status])).toEqual([
        ['fs', 'connected'],
        ['memory', 'connected'],
        ['local', 'connected'],
      ]);
    } finally {
      await agent.close();
    }
  });

  it('archives a 100 KiB result and pages it back through context byte-exactly', async () => {
    const expected = bigText(100);
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__big__big', arguments: { kib: 100 } }] },
      ...Array.from({ length: 12 }, () => (req: ModelRequest) => {
        const last = lastTool(req).content;
        const ref = /ref=(ref_[a-z0-9]+)/.exec(last)?.[1];
        if (ref)
          return { toolCalls: [{ name: 'context', arguments: { ref, offset: 0, length: 16384 } }] };
        const page = JSON.parse(last) as { ref: string; nextOffset: number | null };
        if (page.nextOffset === null) return { text: 'read it all' };
        return {
          toolCalls: [
            {
              name: 'context',
              arguments: { ref: page.ref, offset: page.nextOffset, length: 16384 },
            },
          ],
        };
      }),
    ]);
    const agent = createAgent(
      open({
        model,
        mcpServers: { big: stdioConfig('big-result-server.mjs') },
        limits: { maxIterations: 12 },
      }),
    );
    try {
      const { events, error } = await collect(agent.run({ input: 'x', sessionId: 'big' }));
      expect(error).toBeUndefined();
      const completed = ofType(events, 'tool.completed');
      expect(completed[0]!.content.length).toBeLessThan(4096);
      expect(completed[0]!.content).toContain('102400 bytes');
      const pages = completed
        .slice(1)
        .map((c) => JSON.parse(c.content) as { text: string; offset: number });
      expect(pages.map((p) => p.text).join('')).toBe(expected);
      expect(Buffer.byteLength(pages.map((p) => p.text).join(''))).toBe(102400);
      const state = await agent.sessions.get('big');
      expect(state?.archiveRefs).toHaveLength(1);
      expect(JSON.stringify(state?.messages).length).toBeLessThan(102400 + 20000 * pages.length);
    } finally {
      await agent.close();
    }
  });

  it('references are scoped to their session', async () => {
    let ref = '';
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__big__big', arguments: { kib: 20 } }] },
      (req) => ((ref = /ref=(ref_[a-z0-9]+)/.exec(lastTool(req).content)![1]!), { text: 'one' }),
      () => ({ toolCalls: [{ name: 'context', arguments: { ref } }] }),
      (req) => ({ text: lastTool(req).content }),
    ]);
    const agent = createAgent(
      open({ model, mcpServers: { big: stdioConfig('big-result-server.mjs') } }),
    );
    try {
      await agent.send('first', { sessionId: 's1' });
      const other = await agent.send('second', { sessionId: 's2' });
      expect(other.text).toMatch(/^Error \[TOOL_ARGUMENTS_INVALID\].*Unknown archive reference/);
    } finally {
      await agent.close();
    }
  });

  it('gives safe names to tools that do not fit and calls them by their original names', async () => {
    const model = scriptedModel([{ text: 'listed' }]);
    const agent = createAgent(
      open({ model, mcpServers: { odd: stdioConfig('safe-names-server.mjs') } }),
    );
    try {
      await agent.send('x');
      const tools = agent.mcp.list()[0]!.tools;
      for (const t of tools) expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
      const dotted = tools.find((t) => t.originalName === 'files.read')!;
      const model2 = scriptedModel([
        { toolCalls: [{ name: dotted.name, arguments: {} }] },
        (req) => ({ text: lastTool(req).content }),
      ]);
      const agent2 = createAgent(
        open({ model: model2, mcpServers: { odd: stdioConfig('safe-names-server.mjs') } }),
      );
      expect((await agent2.send('y')).text).toContain('files.read');
      await agent2.close();
      const strict = createAgent(
        open({
          model: scriptedModel([{ text: 'x' }]),
          mcp: { strictConfig: true, names: 'strict' },
          mcpServers: { odd: stdioConfig('safe-names-server.mjs') },
        }),
      );
      await strict.send('z');
      expect(strict.mcp.list()[0]).toMatchObject({
        status: 'failed',
        error: { code: 'INVALID_CONFIGURATION' },
        tools: [],
      });
      await strict.close();
    } finally {
      await agent.close();
    }
  });
});
