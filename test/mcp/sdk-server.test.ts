import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, scriptedModel, sdkTool } from '../../src/index.js';
import type { AgentOptions, ToolResultMessage } from '../../src/index.js';
import { collect, ofType } from '../support/run-helpers.js';

function crmServer(calls: string[] = []) {
  return createSdkMcpServer({
    name: 'crm',
    tools: [
      sdkTool(
        'greet',
        'Greets someone.',
        { name: z.string() },
        async ({ name }: { name: string }) => {
          calls.push(name);
          return { content: [{ type: 'text', text: `Hello, ${name}!` }] };
        },
        { annotations: { readOnlyHint: true } },
      ),
      sdkTool(
        'order.lookup',
        'Looks up an order.',
        z.object({ id: z.number() }),
        async ({ id }: { id: number }) => ({
          content: [{ type: 'text', text: `order ${id}` }],
          structuredContent: { id, status: 'paid' },
        }),
      ),
    ],
  });
}

const base = (extra: Partial<AgentOptions> = {}): AgentOptions => ({
  mcp: { strictConfig: true },
  policy: { allow: ['mcp_connect:*', 'mcp__crm__*'] },
  ...extra,
});

describe('in-process (sdk) MCP servers', () => {
  it('connects lazily on the first run, discovers tools with safe names, and calls them', async () => {
    const calls: string[] = [];
    const server = crmServer(calls);
    const model = scriptedModel([
      { toolCalls: [{ name: 'mcp__crm__greet', arguments: { name: 'Ada' } }] },
      (req) => ({ text: (req.messages.at(-1) as ToolResultMessage).content }),
    ]);
    const agent = createAgent(base({ model, mcpServers: { crm: { type: 'sdk', server } } }));
    expect(agent.mcp.list()).toEqual([
      { name: 'crm', source: 'options', type: 'sdk', status: 'pending', tools: [] },
    ]);
    const { events, error } = await collect(agent.run({ input: 'greet Ada' }));
    expect(error).toBeUndefined();
    expect(calls).toEqual(['Ada']);
    expect(ofType(events, 'mcp.server.status').map((e) => e.status)).toEqual([
      'connecting',
      'connected',
    ]);
    const discovered = ofType(events, 'mcp.tool.discovered');
    expect(discovered.map((d) => d.originalName)).toEqual(['greet', 'order.lookup']);
    const safe = discovered.find((d) => d.originalName === 'order.lookup')!.toolName;
    expect(safe).toMatch(/^mcp__crm__order_lookup_[0-9a-f]{10}$/);
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual([
      'mcp__crm__greet',
      safe,
      'context',
    ]);
    expect(ofType(events, 'session.completed')[0]?.content).toBe('Hello, Ada!');
    const status = agent.mcp.list()[0]!;
    expect(status).toMatchObject({
      status: 'connected',
      era: 'modern',
      protocolVersion: '2026-07-28',
    });
    expect(status.tools[0]).toEqual({
      name: 'mcp__crm__greet',
      originalName: 'greet',
      annotations: { readOnlyHint: true },
      stale: false,
    });
    const types = events.map((e) => e.type);
    expect(types.indexOf('session.started')).toBeLessThan(types.indexOf('mcp.server.status'));
    await agent.close();
  });

  it('one server definition serves two agents running at the same time', async () => {
    const calls: string[] = [];
    const server = crmServer(calls);
    const make = (who: string) =>
      createAgent(
        base({
          model: scriptedModel([
            { toolCalls: [{ name: 'mcp__crm__greet', arguments: { name: who } }] },
            { text: 'ok' },
          ]),
          mcpServers: { crm: { type: 'sdk', server } },
        }),
      );
    const [a, b] = [make('A'), make('B')];
    const results = await Promise.all([a.send('x'), b.send('y')]);
    expect(results.map((r) => r.text)).toEqual(['ok', 'ok']);
    expect(calls.sort()).toEqual(['A', 'B']);
    await Promise.all([a.close(), b.close()]);
  });

  it('denies the connection without approval by default: the server is disabled and offers no tools', async () => {
    const model = scriptedModel([{ text: 'no tools' }]);
    const agent = createAgent({
      mcp: { strictConfig: true },
      model,
      mcpServers: { crm: { type: 'sdk', server: crmServer() } },
    });
    const { events } = await collect(agent.run({ input: 'x' }));
    expect(ofType(events, 'mcp.server.status')).toEqual([
      expect.objectContaining({
        server: 'crm',
        status: 'disabled',
        error: expect.objectContaining({ code: 'TOOL_APPROVAL_REQUIRED' }),
      }),
    ]);
    expect(model.requests[0]!.tools).toEqual([]);
    await agent.close();
  });

  it('keeps the catalog for the agent across runs and reuses the connection', async () => {
    const agent = createAgent(
      base({
        model: scriptedModel([{ text: 'one' }, { text: 'two' }]),
        mcpServers: { crm: { type: 'sdk', server: crmServer() } },
      }),
    );
    const first = await collect(agent.run({ input: 'a' }));
    const second = await collect(agent.run({ input: 'b' }));
    expect(ofType(first.events, 'mcp.server.status')).toHaveLength(2);
    expect(ofType(second.events, 'mcp.server.status')).toHaveLength(0);
    await agent.close();
  });

  it('register/unregister at run time; REGISTRY_BUSY during a run; initialize() returns connect events', async () => {
    let busy: unknown;
    const agentRef: { current?: ReturnType<typeof createAgent> } = {};
    const agent = createAgent(
      base({
        model: scriptedModel([
          { toolCalls: [{ name: 'mcp__crm__greet', arguments: { name: 'Z' } }] },
          { text: 'done' },
        ]),
        hooks: {
          beforeTool: async () => {
            await agentRef
              .current!.mcp.register('other', { type: 'sdk', server: crmServer() })
              .catch((e: unknown) => (busy = e));
          },
        },
      }),
    );
    agentRef.current = agent;
    expect(await agent.initialize()).toEqual([]);
    const status = await agent.mcp.register('crm', { type: 'sdk', server: crmServer() });
    expect(status).toMatchObject({ name: 'crm', source: 'runtime', status: 'connected' });
    await expect(
      agent.mcp.register('crm', { type: 'sdk', server: crmServer() }),
    ).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
    const reply = await agent.send('x');
    expect(reply.text).toBe('done');
    expect(busy).toMatchObject({ code: 'REGISTRY_BUSY' });
    await agent.mcp.unregister('crm');
    expect(agent.mcp.list()).toEqual([]);
    await agent.close();
  });
});
