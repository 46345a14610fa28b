/**
 * What Muster refuses while signing in, against a real authorization server and MCP server:
 * a callback with a wrong state, a wrong iss, or repeated parameters; a serverUrl that is not
 * the server's; an authorization server outside allowedOrigins; a redirect; a login past its
 * deadline; a cancelled login. A refused callback leaves the login waiting; a timed-out or
 * cancelled one cannot be finished by a late callback.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError, MusterError, createAgent, scriptedModel } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { REDIRECT_URI, managerFor } from './oauth-support.js';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});

afterAll(async () => {
  await world?.close();
});

async function reasonOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    expect(McpError.isInstance(err)).toBe(true);
    expect((err as McpError).code).toBe('MCP_AUTH_REQUIRED');
    return (err as McpError).details.reason;
  }
  throw new Error('expected MCP_AUTH_REQUIRED');
}

/** A pull-mode login up to the callback, which the test may alter before submitting. */
async function pendingLogin() {
  const { manager } = managerFor(world);
  await manager.connectAll();
  const { authUrl } = await manager.authenticate('w');
  const callback = new URL(await world.browse(authUrl!));
  return { manager, callback };
}

describe('callback checks', () => {
  it('refuses a wrong state and keeps the login waiting for the real callback', async () => {
    const { manager, callback } = await pendingLogin();
    try {
      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged-state-value');
      expect(await reasonOf(manager.submitOAuthCallback('w', forged))).toBe('state-mismatch');
      expect(manager.list()[0]?.status).toBe('needs-auth');
      expect((await manager.submitOAuthCallback('w', callback)).status).toBe('connected');
    } finally {
      await manager.close();
    }
  });

  it('refuses a callback whose iss is not the authorization server, before redeeming the code', async () => {
    const { manager, callback } = await pendingLogin();
    try {
      const before = world.counters().tokenRequests.authorization_code ?? 0;
      const forged = new URL(callback);
      forged.searchParams.set('iss', 'http://127.0.0.1:1');
      expect(await reasonOf(manager.submitOAuthCallback('w', forged))).toBe('issuer-mismatch');
      expect(world.counters().tokenRequests.authorization_code ?? 0).toBe(before);
      expect(manager.list()[0]?.status).not.toBe('connected');
    } finally {
      await manager.close();
    }
  });

  it('refuses repeated parameters', async () => {
    const { manager, callback } = await pendingLogin();
    try {
      const forged = `${callback.href}&code=injected-code-value`;
      expect(await reasonOf(manager.submitOAuthCallback('w', forged))).toBe('duplicate-parameter');
      const forgedState = `${callback.href}&state=${callback.searchParams.get('state')}`;
      expect(await reasonOf(manager.submitOAuthCallback('w', forgedState))).toBe(
        'duplicate-parameter',
      );
    } finally {
      await manager.close();
    }
  });

  it('a refusal by the authorization server ends the login: its state is spent', async () => {
    const { manager } = managerFor(world);
    try {
      await manager.connectAll();
      const { authUrl } = await manager.authenticate('w');
      const denied = await world.browse(authUrl!, { deny: true });
      expect(new URL(denied).searchParams.get('error')).toBe('access_denied');
      expect(await reasonOf(manager.submitOAuthCallback('w', denied))).toBe('authorization-denied');
      expect(await reasonOf(manager.submitOAuthCallback('w', denied))).toBe('no-login');
    } finally {
      await manager.close();
    }
  });

  it('refuses a callback to another destination', async () => {
    const { manager, callback } = await pendingLogin();
    try {
      const elsewhere = new URL(callback);
      elsewhere.pathname = '/other';
      expect(await reasonOf(manager.submitOAuthCallback('w', elsewhere))).toBe('wrong-destination');
    } finally {
      await manager.close();
    }
  });
});

describe('configuration and origins', () => {
  it('refuses a serverUrl that is not exactly the server url, at construction', () => {
    for (const serverUrl of [`${world.mcpUrl}/`, world.mcpUrl.replace('127.0.0.1', 'localhost')]) {
      let error: unknown;
      try {
        managerFor(world, { serverUrl });
      } catch (err) {
        error = err;
      }
      expect(MusterError.isInstance(error)).toBe(true);
      expect((error as MusterError).code).toBe('INVALID_CONFIGURATION');
    }
  });

  it('refuses OAuth beside a static Authorization header, at construction', () => {
    expect(
      () =>
        new McpClientManager(
          {
            w: {
              type: 'http',
              url: world.mcpUrl,
              headers: { Authorization: 'Bearer static-token-1' },
            },
          },
          {
            strictConfig: true,
            oauth: {
              w: { serverUrl: world.mcpUrl, allowedOrigins: [], redirectUri: REDIRECT_URI },
            },
          },
        ),
    ).toThrow(/static Authorization/);
  });

  it('never contacts an authorization server outside allowedOrigins', async () => {
    const before = world.counters();
    const { manager } = managerFor(world, {
      allowedOrigins: [],
      authorize: (url) => world.browse(url),
    });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).toBe('failed');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(summary?.error?.message).toContain('allowedOrigins');
      const after = world.counters();
      expect(after.registrations).toBe(before.registrations);
      expect(after.authorizationRequests).toBe(before.authorizationRequests);
    } finally {
      await manager.close();
    }
  });

  it('refuses a redirect from the authorization server', async () => {
    world.authServer.setRedirect('/reg', `${world.issuer}/elsewhere`);
    const before = world.counters();
    const { manager } = managerFor(world, { authorize: (url) => world.browse(url) });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).toBe('failed');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(summary?.error?.message).toMatch(/redirect/);
      expect(world.counters().registrations).toBe(before.registrations);
      expect(world.counters().authorizationRequests).toBe(before.authorizationRequests);
    } finally {
      world.authServer.setRedirect('/reg', undefined);
      await manager.close();
    }
  });

  it('refuses a redirect of the resource metadata, even where discovery would fall back', async () => {
    // a resource whose metadata lives behind a redirect to the real one
    const redirecting = createServer((req, res) => {
      res.writeHead(302, { location: world.resourceMetadataUrl }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    world.mcpServer.setResourceMetadataOverride(undefined);
    const { manager } = managerFor(world, {
      allowedOrigins: [world.issuer, origin],
      authorize: (url) => world.browse(url),
    });
    const realFetch = globalThis.fetch;
    try {
      // the MCP server names the redirecting metadata URL in its challenge
      globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
        const response = await realFetch(input, init);
        const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
        if (url.href !== world.mcpUrl || response.status !== 401) return response;
        const headers = new Headers(response.headers);
        headers.set(
          'www-authenticate',
          `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        );
        return new Response(response.body, { status: 401, headers });
      }) as typeof fetch;
      const [summary] = await manager.connectAll();
      expect(summary?.status).toBe('failed');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(summary?.error?.message).toMatch(/redirect/);
    } finally {
      globalThis.fetch = realFetch;
      await manager.close();
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });
});

describe('deadlines and cancellation', () => {
  it('ends a login at its deadline, aborts authorize, and refuses the late callback', async () => {
    let authorizeSignal: AbortSignal | undefined;
    let authUrl = '';
    const { manager } = managerFor(world, {
      timeoutMs: 200,
      authorize: (url, { signal }) => {
        authorizeSignal = signal;
        authUrl = url;
        return new Promise(() => undefined); // a person who never comes back
      },
    });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).toBe('needs-auth');
      expect(summary?.error?.message).toMatch(/within 200 ms/);
      expect(authorizeSignal?.aborted).toBe(true);
      const before = world.counters().tokenRequests.authorization_code ?? 0;
      const late = await world.browse(authUrl);
      expect(await reasonOf(manager.submitOAuthCallback('w', late))).toBe('no-login');
      expect(world.counters().tokenRequests.authorization_code ?? 0).toBe(before);
    } finally {
      await manager.close();
    }
  });

  it('a run aborted during the login cancels it; the callback that comes later changes nothing', async () => {
    let release: ((url: string) => void) | undefined;
    let authorizeSignal: AbortSignal | undefined;
    let authUrl = '';
    let startedResolve: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      startedResolve = resolve;
    });
    const agent = createAgent({
      model: scriptedModel([{ text: 'done' }]),
      policy: { allow: ['mcp_connect:w'] },
      mcpServers: { w: { type: 'http', url: world.mcpUrl } },
      mcp: {
        strictConfig: true,
        protocol: { mode: 'legacy' },
        oauth: {
          w: {
            serverUrl: world.mcpUrl,
            allowedOrigins: [world.issuer],
            redirectUri: REDIRECT_URI,
            authorize: (url, { signal }) => {
              authorizeSignal = signal;
              authUrl = url;
              startedResolve();
              return new Promise<string>((resolve) => {
                release = resolve;
              });
            },
          },
        },
      },
    });
    try {
      const controller = new AbortController();
      const run = agent.send('hello', { signal: controller.signal });
      await started;
      controller.abort();
      await run.catch(() => undefined);
      expect(authorizeSignal?.aborted).toBe(true);
      const before = world.counters().tokenRequests.authorization_code ?? 0;
      release?.(await world.browse(authUrl));
      // the cancelled login is gone: no code is redeemed, and a callback is refused
      expect(await reasonOf(agent.mcp.submitOAuthCallback('w', await world.browse(authUrl)))).toBe(
        'no-login',
      );
      expect(world.counters().tokenRequests.authorization_code ?? 0).toBe(before);
      expect(agent.mcp.list()[0]?.status).not.toBe('connected');
    } finally {
      await agent.close();
    }
  });
});
