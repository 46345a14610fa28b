import { describe, expect, it } from 'vitest';
import { createAgent, scriptedModel } from '../../src/index.js';
import type {
  AgentEvent,
  AgentOptions,
  McpServerConfig,
  ModelRequest,
  ToolResultMessage,
} from '../../src/index.js';
import {
  startLegacyOnlyHttpServer,
  startModernOnlyHttpServer,
} from '../fixtures/mcp/http-servers.mjs';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

const open = (extra: Partial<AgentOptions>): AgentOptions => ({
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  ...extra,
});
const lastTool = (req: ModelRequest) =>
  [...req.messages].reverse().find((m) => m.role === 'tool') as ToolResultMessage;

describe('MCP lifecycle', () => {
  it('connects ten servers with at most four connecting at once', async () => {
    const servers: Record<string, McpServerConfig> = {};
    for (let i = 0; i < 10; i++)
      servers[`s${i}`] = stdioConfig('basic-server.mjs', [`--name=${i}`]);
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'ok' }]),
        mcpServers: servers,
        mcp: { strictConfig: true, startupConcurrency: 4 },
      }),
    );
    try {
      const events = await agent.initialize();
      const connecting = new Set<string>();
      let max = 0;
      for (const e of ofType(events, 'mcp.server.status')) {
        if (e.status === 'connecting') connecting.add(e.server);
        else connecting.delete(e.server);
        max = Math.max(max, connecting.size);
      }
      expect(max).toBe(4);
      expect(agent.mcp.list().every((s) => s.status === 'connected')).toBe(true);
      expect(ofType(events, 'mcp.tool.discovered')).toHaveLength(20);
    } finally {
      await agent.close();
    }
  });

  it('a server that fails to start does not stop the others; its status carries a sanitized error', async () => {
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'ok' }]),
        mcpServers: {
          good: stdioConfig('basic-server.mjs'),
          bad: stdioConfig('fail-start-server.mjs'),
        },
      }),
    );
    try {
      const { events } = await collect(agent.run({ input: 'x' }));
      const list = agent.mcp.list();
      expect(list.find((s) => s.name === 'good')?.status).toBe('connected');
      const bad = list.find((s) => s.name === 'bad')!;
      expect(bad).toMatchObject({ status: 'failed', error: { code: 'MCP_CONNECTION_FAILED' } });
      expect(bad.error?.message).toContain("'bad'");
      expect(JSON.stringify([events, list])).not.toContain('SECRET-TOKEN-abc123');
    } finally {
      await agent.close();
    }
  });

  it('a changed tool list applies from the next run, never during the current one', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__lc__mutate', arguments: {} }] },
      { toolCalls: [{ name: 'mcp__lc__beta', arguments: {} }] },
      { text: 'first run done' },
      { text: 'second run done' },
    ]);
    const seen: AgentEvent[] = [];
    const agent = createAgent(
      open({
        model,
        mcpServers: { lc: stdioConfig('list-changing-server.mjs') },
        observability: { onEvent: (e) => void seen.push(e) },
      }),
    );
    try {
      const first = await collect(agent.run({ input: 'x' }));
      expect(first.error).toBeUndefined();
      const names = (i: number) =>
        model.requests[i]!.tools.map((t) => t.name)
          .filter((n) => n !== 'context')
          .sort();
      expect(names(0)).toEqual(['mcp__lc__alpha', 'mcp__lc__beta', 'mcp__lc__mutate']);
      expect(names(2)).toEqual(names(0));
      await expect
        .poll(() => agent.mcp.list()[0]!.tools.every((t) => t.stale), { timeout: 15_000 })
        .toBe(true);
      const second = await collect(agent.run({ input: 'y' }));
      expect(names(3)).toEqual(['mcp__lc__alpha', 'mcp__lc__gamma', 'mcp__lc__mutate']);
      expect(ofType(second.events, 'mcp.catalog.updated').map((e) => e.reason)).toEqual([
        'refreshed',
      ]);
      expect(seen.some((e) => e.type === 'mcp.catalog.updated' && e.reason === 'stale')).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('a call that outlives its timeout is TOOL_OUTCOME_UNKNOWN; progress keeps a long call alive', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__slow__sleep', arguments: { ms: 5000 } }] },
      { toolCalls: [{ name: 'mcp__slow__progress_sleep', arguments: { steps: 6, stepMs: 100 } }] },
      { text: 'done' },
    ]);
    const agent = createAgent(
      open({
        model,
        mcpServers: { slow: stdioConfig('slow-server.mjs') },
        mcp: { strictConfig: true, operation: { timeoutMs: 300 } },
      }),
    );
    try {
      const { events, error } = await collect(agent.run({ input: 'x' }));
      expect(error).toBeUndefined();
      const done = ofType(events, 'tool.completed');
      expect(done[0]).toMatchObject({
        toolName: 'mcp__slow__sleep',
        errorCode: 'TOOL_OUTCOME_UNKNOWN',
        executed: true,
      });
      expect(done[0]!.content).toContain('timed out after 300 ms');
      expect(done[1]).toMatchObject({
        toolName: 'mcp__slow__progress_sleep',
        isError: false,
        content: 'done after 6 steps',
      });
      expect(ofType(events, 'tool.progress').length).toBeGreaterThanOrEqual(5);
    } finally {
      await agent.close();
    }
  });

  it("a user's abort is told apart from a timeout", async () => {
    const ac = new AbortController();
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__slow__sleep', arguments: { ms: 5000 } }] },
    ]);
    const agent = createAgent(
      open({
        model,
        mcpServers: { slow: stdioConfig('slow-server.mjs') },
        observability: { onEvent: (e) => void (e.type === 'tool.called' && ac.abort()) },
      }),
    );
    try {
      const { events, error } = await collect(agent.run({ input: 'x', signal: ac.signal }));
      expect(error).toMatchObject({ code: 'ABORTED' });
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done.errorCode).toBe('TOOL_OUTCOME_UNKNOWN');
      expect(done.content).toMatch(/abort/);
      expect(done.content).not.toMatch(/timed out/);
    } finally {
      await agent.close();
    }
  });

  it('a server that exits mid-call gives TOOL_OUTCOME_UNKNOWN and is reconnected at the next run', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__ex__crash', arguments: {} }] },
      (req) => ({ text: lastTool(req).content }),
      { toolCalls: [{ name: 'mcp__ex__ok', arguments: {} }] },
      (req) => ({ text: lastTool(req).content }),
    ]);
    const agent = createAgent(
      open({ model, mcpServers: { ex: stdioConfig('exit-mid-call-server.mjs') } }),
    );
    try {
      const first = await agent.send('crash it');
      expect(first.text).toMatch(/^Error \[TOOL_OUTCOME_UNKNOWN\]/);
      expect(first.text).toContain('disconnected');
      await expect.poll(() => agent.mcp.list()[0]!.status, { timeout: 15_000 }).toBe('failed');
      const second = await agent.send('again');
      expect(second.text).not.toMatch(/^Error/);
      expect(agent.mcp.list()[0]!.status).toBe('connected');
    } finally {
      await agent.close();
    }
  });

  it('auto negotiation: modern-only and legacy-only HTTP servers each connect in their era', async () => {
    const modern = await startModernOnlyHttpServer();
    const legacy = await startLegacyOnlyHttpServer();
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'x' }]),
        mcpServers: { m: { type: 'http', url: modern.url }, l: { type: 'http', url: legacy.url } },
      }),
    );
    const pinnedLegacy = createAgent(
      open({
        model: scriptedModel([{ text: 'x' }]),
        mcpServers: { m: { type: 'http', url: modern.url } },
        mcp: { strictConfig: true, protocol: { mode: 'legacy' } },
      }),
    );
    try {
      await agent.initialize();
      const byName = Object.fromEntries(agent.mcp.list().map((s) => [s.name, s]));
      expect(byName['m']).toMatchObject({
        status: 'connected',
        era: 'modern',
        protocolVersion: '2026-07-28',
      });
      expect(byName['l']).toMatchObject({ status: 'connected', era: 'legacy' });
      await pinnedLegacy.initialize();
      expect(pinnedLegacy.mcp.list()[0]).toMatchObject({ status: 'failed' });
    } finally {
      await Promise.all([agent.close(), pinnedLegacy.close()]);
      await Promise.all([modern.close(), legacy.close()]);
    }
  });
});
