import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { AgentEvent, AgentOptions } from '../../src/index.js';
import { startLegacyOnlyHttpServer } from '../fixtures/mcp/http-servers.mjs';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { collect, ofType } from '../support/run-helpers.js';

const open = (extra: Partial<AgentOptions>): AgentOptions => ({
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  ...extra,
});

const server = (tool: string) =>
  createSdkMcpServer({
    name: 'x',
    tools: [
      sdkTool(tool, tool, { v: z.string().optional() }, () => ({
        content: [{ type: 'text', text: tool }],
      })),
    ],
  });

describe('registry mutations', () => {
  it('update replaces a server and its tools; events report each change', async () => {
    const seen: AgentEvent[] = [];
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }]);
    const agent = createAgent(
      open({
        model,
        mcpServers: { s: { type: 'sdk', server: server('first') } },
        observability: { onEvent: (e) => void seen.push(e) },
      }),
    );
    try {
      await agent.send('x');
      expect(agent.mcp.list()[0]!.tools.map((t) => t.name)).toEqual(['mcp__s__first']);
      const status = await agent.mcp.update('s', { type: 'sdk', server: server('second') });
      expect(status).toMatchObject({ status: 'connected', source: 'runtime' });
      await agent.send('y');
      expect(model.requests[1]!.tools.map((t) => t.name)).toContain('mcp__s__second');
      expect(model.requests[1]!.tools.map((t) => t.name)).not.toContain('mcp__s__first');
      expect(
        seen
          .filter((e) => e.type === 'mcp.server.changed')
          .map((e) => (e as { change: string }).change),
      ).toEqual(['updated']);
      await expect(
        agent.mcp.update('nope', { type: 'sdk', server: server('z') }),
      ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
      await expect(agent.mcp.unregister('nope')).rejects.toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    } finally {
      await agent.close();
    }
  });

  it('register of a server that cannot connect fails and leaves nothing behind', async () => {
    const agent = createAgent(open({ model: scriptedModel([]) }));
    try {
      await expect(
        agent.mcp.register('bad', stdioConfig('fail-start-server.mjs')),
      ).rejects.toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
      expect(agent.mcp.list()).toEqual([]);
      const denied = createAgent({ mcp: { strictConfig: true }, model: scriptedModel([]) });
      await expect(
        denied.mcp.register('s', { type: 'sdk', server: server('t') }),
      ).rejects.toMatchObject({ code: 'TOOL_APPROVAL_REQUIRED' });
      await denied.close();
      await expect(
        agent.mcp.register('x', { type: 'sse', url: 'https://e.com/sse' }),
      ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
    } finally {
      await agent.close();
    }
  });

  it('a pinned protocol version refuses a server that does not offer it', async () => {
    const legacy = await startLegacyOnlyHttpServer();
    const agent = createAgent(
      open({
        model: scriptedModel([{ text: 'x' }]),
        mcp: { strictConfig: true, protocol: { mode: { pin: '2026-07-28' } } },
        mcpServers: { l: { type: 'http', url: legacy.url } },
      }),
    );
    try {
      const events = await agent.initialize();
      expect(ofType(events, 'mcp.server.status').map((e) => e.status)).toEqual([
        'connecting',
        'failed',
      ]);
      expect(agent.mcp.list()[0]!.error?.code).toBe('MCP_CONNECTION_FAILED');
    } finally {
      await agent.close();
      await legacy.close();
    }
  });

  it('maxTotalTimeoutMs bounds a call even while it reports progress', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__slow__progress_sleep', arguments: { steps: 40, stepMs: 50 } }] },
      { text: 'ok' },
    ]);
    const agent = createAgent(
      open({
        model,
        mcpServers: { slow: stdioConfig('slow-server.mjs') },
        mcp: { strictConfig: true, operation: { timeoutMs: 500, maxTotalTimeoutMs: 700 } },
      }),
    );
    try {
      const { events } = await collect(agent.run({ input: 'x' }));
      const done = ofType(events, 'tool.completed')[0]!;
      expect(done.errorCode).toBe('TOOL_OUTCOME_UNKNOWN');
      expect(ofType(events, 'tool.progress').length).toBeGreaterThan(2);
    } finally {
      await agent.close();
    }
  });
});

describe('expired HTTP sessions', () => {
  it('a 404 for an expired session leads to a fresh initialize and the call goes through unnoticed', async () => {
    const legacy = await startLegacyOnlyHttpServer();
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__l__echo', arguments: { text: 'one' } }] },
      { text: 'first' },
      { toolCalls: [{ name: 'mcp__l__echo', arguments: { text: 'two' } }] },
      { text: 'second' },
    ]);
    const agent = createAgent(
      open({ model, mcpServers: { l: { type: 'http', url: legacy.url } } }),
    );
    try {
      const first = await collect(agent.run({ input: 'x' }));
      expect(ofType(first.events, 'tool.completed')[0]).toMatchObject({ isError: false });
      await legacy.expireSessions();
      const second = await collect(agent.run({ input: 'y' }));
      const done = ofType(second.events, 'tool.completed')[0]!;
      expect(done).toMatchObject({ isError: false });
      expect(done.content).toContain('two');
      expect(
        legacy.requests.filter((r) => r.includes('initialize') && !r.includes('notifications')),
      ).toHaveLength(2);
      expect(agent.mcp.list()[0]?.status).toBe('connected');
    } finally {
      await agent.close();
      await legacy.close();
    }
  });
});
