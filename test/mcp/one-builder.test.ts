import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  createSdkMcpServer,
  MusterError,
  scriptedModel,
  sdkTool,
} from '../../src/index.js';
import type { Agent, McpServerConfig } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { McpClientManagerOptions } from '../../src/mcp/mcp-entry.js';
import { fixturePath, startHttpFixture } from '../support/mcp-fixtures.js';
import type { HttpFixture } from '../support/mcp-fixtures.js';

// One builder assembles the MCP side for an agent and for McpClientManager: over the same
// declarations (stdio, HTTP, sdk, one left out by mcp.allowedServers, one invalid) both give
// the same list(), send the same client capabilities to recording servers, and refuse the
// invalid one with the same error.

/** Answers with the client capabilities its server saw (both protocol eras). */
const recording = (server: McpServer) =>
  server.registerTool(
    'client-capabilities',
    { description: 'The client capabilities this server saw.' },
    async (ctx) => {
      const seen =
        (ctx.mcpReq as { envelope?: Record<string, unknown> } | undefined)?.envelope?.[
          CLIENT_CAPABILITIES_META_KEY
        ] ??
        server.server.getClientCapabilities() ??
        {};
      return { content: [{ type: 'text', text: JSON.stringify(seen) }] };
    },
  );

const inproc = createSdkMcpServer({
  name: 'inproc',
  tools: [
    sdkTool('ping-back', 'Answers pong.', {}, async () => ({
      content: [{ type: 'text', text: 'pong' }],
    })),
  ],
});

/** MCP options both sides get: handlers (so capabilities are more than empty), an allow-list. */
const MCP = {
  strictConfig: true,
  allowedServers: ['files', 'web', 'inproc'],
  handlers: {
    roots: [{ uri: 'file:///work', name: 'work' }],
    elicitation: async () => ({ action: 'decline' as const }),
    sampling: async () => ({
      role: 'assistant' as const,
      content: { type: 'text' as const, text: 'no' },
      model: 'none',
    }),
  },
} satisfies McpClientManagerOptions;

let http: HttpFixture;
let servers: Record<string, McpServerConfig>;
let agent: Agent;
let manager: McpClientManager;

beforeAll(async () => {
  http = await startHttpFixture('dual', recording);
  servers = {
    files: { command: process.execPath, args: [fixturePath('apps-server.mjs')] },
    web: { type: 'http', url: http.url },
    inproc: { type: 'sdk', server: inproc },
    // declared, but left out by mcp.allowedServers: never started
    left: { command: process.execPath, args: [fixturePath('basic-server.mjs')] },
  };
  agent = createAgent({
    model: scriptedModel([{ text: 'unused' }]),
    modelName: 'scripted',
    mcp: MCP,
    mcpServers: servers,
    policy: { allow: ['mcp_connect:*'] },
  });
  manager = new McpClientManager(servers, MCP);
}, 30_000);

afterAll(async () => {
  await Promise.allSettled([agent?.close(), manager?.close()]);
  await http?.close();
});

/** The MusterError `build` throws (fails the test when it throws nothing, or anything else). */
function refusal(build: () => unknown): MusterError {
  try {
    build();
  } catch (err) {
    if (MusterError.isInstance(err)) return err;
    throw err;
  }
  throw new Error('not refused');
}

/** The capabilities a recording server saw from `side`. */
async function capabilities(
  side: { callTool: McpClientManager['callTool'] },
  server: string,
): Promise<unknown> {
  const result = await side.callTool(server, 'client-capabilities', {});
  const seen = JSON.parse((result.content[0] as { text: string }).text) as {
    capabilities?: unknown;
  };
  // the apps fixture answers { capabilities, ui }; the HTTP tool above, the capabilities
  return server === 'files' ? seen.capabilities : seen;
}

describe('one builder for the agent and McpClientManager', () => {
  it('gives the same list() before and after connecting', async () => {
    expect(agent.mcp.list()).toEqual(manager.list());
    expect(manager.list().map((s) => [s.name, s.status])).toEqual([
      ['files', 'pending'],
      ['web', 'pending'],
      ['inproc', 'pending'],
      ['left', 'disabled'],
    ]);
    await Promise.all([agent.mcp.connectAll(), manager.connectAll()]);
    const listed = manager.list();
    expect(agent.mcp.list()).toEqual(listed);
    expect(listed.filter((s) => s.status === 'connected').map((s) => s.name)).toEqual([
      'files',
      'web',
      'inproc',
    ]);
    expect(listed.find((s) => s.name === 'inproc')?.tools.map((t) => t.originalName)).toEqual([
      'ping-back',
    ]);
  }, 30_000);

  it('sends the same client capabilities over stdio and HTTP', async () => {
    for (const server of ['files', 'web']) {
      const [fromAgent, fromManager] = await Promise.all([
        capabilities(agent.mcp, server),
        capabilities(manager, server),
      ]);
      expect(fromAgent).toEqual(fromManager);
      // the handlers given show up as capabilities on both sides
      expect(fromManager).toMatchObject({ roots: {}, sampling: {}, elicitation: {} });
    }
  }, 30_000);

  it.each([
    ['a server name with __', { bad__name: { command: 'node' } }, {}],
    [
      'a plain-HTTP URL that is not loopback',
      { remote: { type: 'http', url: 'http://example.com/mcp' } },
      {},
    ],
    ['an unknown key', { odd: { command: 'node', colour: 'blue' } }, {}],
    [
      'a transport mcp.transports leaves out',
      { web: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
      { transports: ['stdio'] },
    ],
  ] as const)('refuses %s with the same INVALID_CONFIGURATION message', (_what, bad, extra) => {
    const declared = bad as unknown as Record<string, McpServerConfig>;
    const mcp = { strictConfig: true, ...extra };
    const fromAgent = refusal(() =>
      createAgent({ model: scriptedModel([]), mcp, mcpServers: declared }),
    );
    const fromManager = refusal(() => new McpClientManager(declared, mcp));
    expect(fromAgent.code).toBe('INVALID_CONFIGURATION');
    expect(fromManager.code).toBe('INVALID_CONFIGURATION');
    expect(fromAgent.message).toBe(fromManager.message);
  });

  it('refuses a bad register() the same way on both facades', async () => {
    const [fromAgent, fromManager] = await Promise.all([
      agent.mcp.register('bad__name', { command: 'node' }).then(
        () => undefined,
        (err: unknown) => err,
      ),
      manager.register('bad__name', { command: 'node' }).then(
        () => undefined,
        (err: unknown) => err,
      ),
    ]);
    expect(MusterError.isInstance(fromAgent) && fromAgent.code).toBe('INVALID_CONFIGURATION');
    expect(MusterError.isInstance(fromManager) && fromManager.message).toBe(
      MusterError.isInstance(fromAgent) && fromAgent.message,
    );
  });

  it("reports the manager's MCP options before its policy, as before the one builder", () => {
    const badPolicy = { allow: 'mcp_connect:*' } as unknown as McpClientManagerOptions['policy'];
    const policyAlone = refusal(() => new McpClientManager({}, { policy: badPolicy }));
    expect(policyAlone.code).toBe('INVALID_CONFIGURATION');
    const both = refusal(
      () =>
        new McpClientManager({}, {
          policy: badPolicy,
          strictConfig: 'yes',
        } as unknown as McpClientManagerOptions),
    );
    expect(both.code).toBe('INVALID_CONFIGURATION');
    expect(both.message).toContain('strictConfig');
    expect(both.message).not.toBe(policyAlone.message);
  });
});
