import { describe, expect, it } from 'vitest';
import { MusterError, createAgent } from '../../src/index.js';
import { getMcpExtensionSupport } from '../../src/mcp/index.js';
import { fixturePath } from '../support/mcp-fixtures.js';

// The MCP Apps client capability: advertised (`capabilities.extensions`) only when the host
// sets `mcp.clientExtensions`, as `muster studio` does. The apps fixture answers its
// `client-capabilities` tool with the capabilities it saw, in either protocol era.

const APPS_UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
const apps = { command: process.execPath, args: [fixturePath('apps-server.mjs')] };

async function seen(
  mode: 'auto' | 'legacy',
  clientExtensions?: typeof APPS_UI,
): Promise<{ capabilities: Record<string, unknown>; ui: unknown }> {
  const agent = createAgent({
    mcpServers: { apps },
    mcp: {
      strictConfig: true,
      protocol: { mode },
      ...(clientExtensions ? { clientExtensions } : {}),
    },
    policy: { default: 'allow' },
  });
  try {
    const result = await agent.mcp.callTool('apps', 'client-capabilities', {});
    return JSON.parse((result.content[0] as { text: string }).text) as {
      capabilities: Record<string, unknown>;
      ui: unknown;
    };
  } finally {
    await agent.close();
  }
}

describe('the MCP Apps client capability', () => {
  for (const mode of ['auto', 'legacy'] as const) {
    it(`is advertised only with mcp.clientExtensions (protocol ${mode})`, async () => {
      const without = await seen(mode);
      // other extensions (the Tasks extension, SPEC 15.3) may be declared; the Apps one is not
      expect(without.capabilities['extensions'] ?? {}).not.toHaveProperty([
        'io.modelcontextprotocol/ui',
      ]);
      expect(without.ui).toBeNull();
      const withApps = await seen(mode, APPS_UI);
      expect(withApps.capabilities['extensions']).toMatchObject(APPS_UI);
      expect(withApps.ui).toEqual({ mimeTypes: ['text/html;profile=mcp-app'] });
    }, 30_000);
  }

  it('refuses clientExtensions that are not { "<vendor>/<name>": { ...settings } }', () => {
    for (const clientExtensions of [
      { apps: {} },
      { 'io.modelcontextprotocol/ui': ['text/html;profile=mcp-app'] },
      { 'io.modelcontextprotocol/ui': { when: new Date() } },
      [],
    ]) {
      const err = (() => {
        try {
          createAgent({ mcp: { clientExtensions: clientExtensions as never } });
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
      expect((err as Error).message).toContain('clientExtensions');
    }
  });

  it('is reported as supported, rendered by muster studio', () => {
    const support = getMcpExtensionSupport('apps');
    expect(support.supported).toBe(true);
    expect(support.reason).toContain('muster studio');
    expect(support.reason).toContain('mcp.clientExtensions');
  });
});
