/**
 * What users write first (issue 25, item 5): an in-process server declared by itself, the
 * error of a declaration that meant one, and elicitation hooks that answer without a handler
 * (against server-everything over real stdio pipes).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MusterError, createAgent, createSdkMcpServer, sdkTool } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { everythingStdioConfig } from '../support/mcp-fixtures.js';

function crm() {
  return createSdkMcpServer({
    name: 'crm',
    tools: [
      sdkTool('lookup', 'Looks a customer up.', { id: z.string() }, ({ id }) => ({
        content: [{ type: 'text', text: `customer ${id}` }],
      })),
    ],
  });
}

function thrown(fn: () => unknown): MusterError {
  try {
    fn();
  } catch (err) {
    expect(MusterError.isInstance(err)).toBe(true);
    return err as MusterError;
  }
  throw new Error('expected a throw');
}

const textOf = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe('item-05: the value of createSdkMcpServer() is a declaration by itself', () => {
  it('item-05: mcpServers: { crm: server } connects and calls like { type: sdk, server }', async () => {
    const server = crm();
    const m = new McpClientManager({ crm: server }, { strictConfig: true });
    try {
      expect(m.list()[0]).toMatchObject({ name: 'crm', type: 'sdk' });
      const r = await m.callTool('crm', 'lookup', { id: '7' });
      expect(textOf(r)).toBe('customer 7');
      // register() takes it too
      await m.register('crm2', crm());
      expect(textOf(await m.callTool('crm2', 'lookup', { id: '8' }))).toBe('customer 8');
    } finally {
      await m.close();
    }
  });

  it('item-05: the same server by itself and as { type: sdk, server } is one declaration', () => {
    const server = crm();
    const agent = createAgent({ mcpServers: { crm: server }, mcp: { strictConfig: true } });
    expect(agent.mcp.list().map((s) => [s.name, s.type])).toEqual([['crm', 'sdk']]);
    void agent.close();
  });

  it.each<[string, unknown]>([
    ['{ server } without type', { server: crm() }],
    ['{ type: sdk, sdk: server }', { type: 'sdk', sdk: crm() }],
    ['{ type: sdk, server: not a server }', { type: 'sdk', server: { name: 'x' } }],
  ])("item-05: a wrong shape (%s) names { type: 'sdk', server }", (_, declaration) => {
    const err = thrown(
      () =>
        new McpClientManager({ crm: declaration } as never, {
          strictConfig: true,
        }),
    );
    expect(err.code).toBe('INVALID_CONFIGURATION');
    expect(err.message).toContain("{ type: 'sdk', server }");
  });
});

describe('item-05: elicitation hooks apply without an elicitation handler', () => {
  const legacy = { mode: 'legacy' } as const;

  it('item-05: onElicitation alone declares the capability and answers', async () => {
    const asked: string[] = [];
    const m = new McpClientManager(
      { everything: everythingStdioConfig() },
      {
        strictConfig: true,
        protocol: legacy,
        hooks: {
          onElicitation: (request) => {
            asked.push(request.message);
            return { action: 'decline' };
          },
        },
      },
    );
    try {
      await m.connectAll();
      // server-everything offers the tool only to a client that declares elicitation
      expect(m.list()[0]!.tools.map((t) => t.name)).toContain(
        'mcp__everything__trigger-elicitation-request',
      );
      const r = await m.callTool('everything', 'trigger-elicitation-request', {});
      expect(textOf(r)).toMatch(/declin/i);
      expect(asked).toHaveLength(1);
    } finally {
      await m.close();
    }
  }, 30_000);

  it("item-05: a throwing hook's message never reaches the server", async () => {
    const m = new McpClientManager(
      { everything: everythingStdioConfig() },
      {
        strictConfig: true,
        protocol: legacy,
        hooks: {
          onElicitation: () => {
            throw new Error('hook-canary-5 token=abc');
          },
        },
      },
    );
    try {
      const seen = await m.callTool('everything', 'trigger-elicitation-request', {}).then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
      // the server answered with what it got: a generic error, not the host's message
      expect(seen).toContain('could not answer this elicitation');
      expect(seen).not.toContain('hook-canary-5');
    } finally {
      await m.close();
    }
  }, 30_000);
});
