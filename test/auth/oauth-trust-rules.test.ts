/**
 * Two trust rules of remote servers, against a real authorization server and MCP server on
 * loopback (test/fixtures/oauth): one loopback rule for MCP server URLs and OAuth alike
 * (exactly `localhost`, `127.0.0.1` and `[::1]` may use `http:`), and the client
 * authentication a pre-registered client's secret uses at the token endpoint
 * (`tokenEndpointAuthMethod`), read off the requests the authorization server received.
 * And what a server that asks for a sign-in shows when Muster was given none: `needs-auth`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MusterError, createAgent, scriptedModel } from '../../src/index.js';
import type { McpOAuthServerOptions } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { REDIRECT_URI, managerFor } from './oauth-support.js';

const APP_SECRET = 'app-post-secret-canary-7f3a';
const BOT_SECRET = 'bot-post-secret-canary-91c2';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld({
    clients: [
      {
        client_id: 'app-post',
        client_secret: APP_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: [REDIRECT_URI],
        response_types: ['code'],
      },
      {
        client_id: 'bot-post',
        client_secret: BOT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
  });
});

afterAll(async () => {
  await world?.close();
});

function thrown(make: () => unknown): unknown {
  try {
    make();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

function invalidConfiguration(make: () => unknown): MusterError {
  const error = thrown(make);
  expect(MusterError.isInstance(error)).toBe(true);
  expect((error as MusterError).code).toBe('INVALID_CONFIGURATION');
  return error as MusterError;
}

/** The token requests since `before`, by how the client authenticated. */
function clientAuthSince(before: Readonly<Record<string, number>>): Record<string, number> {
  const now = world.counters().tokenClientAuth;
  return Object.fromEntries(
    Object.keys(now)
      .map((k) => [k, (now[k] ?? 0) - (before[k] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

describe('item-01: one loopback rule for MCP URLs and OAuth', () => {
  const OTHER_LOOPBACK = 'http://127.0.0.2:1';

  it('refuses an MCP server at http://127.0.0.2/ as INVALID_CONFIGURATION, and keeps the three loopback names', () => {
    const error = invalidConfiguration(
      () =>
        new McpClientManager(
          { x: { type: 'http', url: `${OTHER_LOOPBACK}/mcp` } },
          { strictConfig: true },
        ),
    );
    expect(error.message).toContain('localhost, 127.0.0.1 or [::1]');
    invalidConfiguration(() =>
      createAgent({
        model: scriptedModel([]),
        mcpServers: { x: { type: 'sse', url: 'http://127.0.0.2/sse' } },
        mcp: { strictConfig: true },
      }),
    );
    for (const url of ['http://localhost:1/mcp', 'http://127.0.0.1:1/mcp', 'http://[::1]:1/mcp']) {
      const manager = new McpClientManager({ x: { type: 'http', url } }, { strictConfig: true });
      expect(manager.list()[0]?.status).toBe('pending');
      void manager.close();
    }
  });

  it('refuses http://127.0.0.2 as an allowed origin or a redirect URI of OAuth', () => {
    const oauth = (entry: Partial<McpOAuthServerOptions>) => () => managerFor(world, entry);
    const origin = invalidConfiguration(oauth({ allowedOrigins: [OTHER_LOOPBACK] }));
    expect(origin.message).toContain('allowedOrigins');
    const redirect = invalidConfiguration(oauth({ redirectUri: `${OTHER_LOOPBACK}/callback` }));
    expect(redirect.message).toContain('redirectUri');
  });

  it('never contacts an authorization server the MCP server names at http://127.0.0.2', async () => {
    const port = new URL(world.issuer).port;
    world.mcpServer.setResourceMetadataOverride({
      authorization_servers: [`http://127.0.0.2:${port}`],
    });
    const before = world.counters();
    const { manager } = managerFor(world, { authorize: (url) => world.browse(url) });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).toBe('failed');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(summary?.error?.message).toContain('neither https:// nor loopback');
      expect(world.counters().registrations).toBe(before.registrations);
    } finally {
      world.mcpServer.setResourceMetadataOverride(undefined);
      await manager.close();
    }
  });
});

describe('item-01: client_secret_post can be chosen', () => {
  it('sends the secret of a pre-registered client in the token request body', async () => {
    const before = world.counters().tokenClientAuth;
    const { manager, events } = managerFor(world, {
      clientId: 'app-post',
      clientSecret: APP_SECRET,
      tokenEndpointAuthMethod: 'client_secret_post',
      authorize: (url) => world.browse(url),
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      const me = (await manager.callTool('w', 'whoami')).structuredContent as {
        client_id?: string;
      };
      expect(me.client_id).toBe('app-post');
      // the code exchange authenticated with client_secret in the body, never a Basic header
      expect(clientAuthSince(before)).toEqual({ client_secret_post: 1 });
      expect(JSON.stringify(events)).not.toContain(APP_SECRET);
    } finally {
      await manager.close();
    }
  });

  it('uses Basic when nothing is chosen (the authorization server supports both)', async () => {
    const before = world.counters().tokenClientAuth;
    const { manager } = managerFor(world, {
      clientId: 'app-post',
      clientSecret: APP_SECRET,
      authorize: (url) => world.browse(url),
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      expect(clientAuthSince(before)).toEqual({ client_secret_basic: 1 });
    } finally {
      await manager.close();
    }
  });

  it('sends a client_credentials secret in the body too', async () => {
    const before = world.counters().tokenClientAuth;
    const { manager } = managerFor(world, {
      grant: 'client_credentials',
      clientId: 'bot-post',
      clientSecret: BOT_SECRET,
      tokenEndpointAuthMethod: 'client_secret_post',
      scope: 'mcp:read',
      expectedIssuer: world.issuer,
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      expect(clientAuthSince(before)).toEqual({ client_secret_post: 1 });
    } finally {
      await manager.close();
    }
  });

  it('refuses an authorization server that does not list the chosen method, before sending the secret', async () => {
    world.authServer.setMetadataOverride({
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    });
    const before = world.counters();
    const { manager } = managerFor(world, {
      grant: 'client_credentials',
      clientId: 'bot-post',
      clientSecret: BOT_SECRET,
      tokenEndpointAuthMethod: 'client_secret_post',
      expectedIssuer: world.issuer,
    });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).not.toBe('connected');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(summary?.error?.message).toContain('tokenEndpointAuthMethod');
      expect(world.counters().tokenRequests).toEqual(before.tokenRequests);
    } finally {
      world.authServer.setMetadataOverride(undefined);
      await manager.close();
    }
  });

  it('refuses a method without a secret, or one it does not know, at construction', () => {
    const noSecret = invalidConfiguration(() =>
      managerFor(world, { clientId: 'app-post', tokenEndpointAuthMethod: 'client_secret_post' }),
    );
    expect(noSecret.message).toContain('clientSecret');
    invalidConfiguration(() =>
      managerFor(world, {
        clientId: 'app-post',
        clientSecret: APP_SECRET,
        tokenEndpointAuthMethod: 'private_key_jwt' as 'client_secret_post',
      }),
    );
  });
});

describe('item-02: a server that asks for a sign-in Muster was not given', () => {
  for (const mode of ['auto', 'legacy'] as const) {
    it(`shows needs-auth with MCP_AUTH_REQUIRED (protocol ${mode}), and so do its calls`, async () => {
      const manager = new McpClientManager(
        { w: { type: 'http', url: world.mcpUrl } },
        { strictConfig: true, protocol: { mode } },
      );
      try {
        const [summary] = await manager.connectAll();
        expect(summary?.status).toBe('needs-auth');
        expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
        expect(summary?.error?.message).toContain('HTTP 401');
        await expect(manager.callTool('w', 'whoami')).rejects.toMatchObject({
          code: 'MCP_AUTH_REQUIRED',
          server: 'w',
        });
      } finally {
        await manager.close();
      }
    });
  }

  it('keeps a server whose own token was refused failed (a sign-in is not what it needs)', async () => {
    const manager = new McpClientManager(
      {
        w: { type: 'http', url: world.mcpUrl, headers: { Authorization: 'Bearer not-a-token-1' } },
      },
      { strictConfig: true },
    );
    try {
      expect((await manager.connectAll())[0]?.status).toBe('failed');
    } finally {
      await manager.close();
    }
  });
});
