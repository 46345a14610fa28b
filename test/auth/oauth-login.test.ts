/**
 * Signing in through `mcp.oauth` against a real authorization server (oidc-provider) and a
 * real MCP server that checks every token (signature, audience, expiry): push and pull
 * logins, silent re-use of stored tokens, and one refresh for concurrent 401s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryTokenStore } from '../../src/index.js';
import type { TokenStore } from '../../src/index.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { managerFor } from './oauth-support.js';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});

afterAll(async () => {
  await world?.close();
});

function whoami(result: { structuredContent?: unknown }): { sub?: string; scopes?: string[] } {
  return (result.structuredContent ?? {}) as { sub?: string; scopes?: string[] };
}

describe('push mode', () => {
  it('logs in with the host’s authorize, then calls tools with a token the server accepts', async () => {
    const before = world.counters();
    const urls: string[] = [];
    const { manager, events } = managerFor(world, {
      authorize: async (url) => {
        urls.push(url);
        return world.browse(url);
      },
    });
    try {
      const [summary] = await manager.connectAll();
      expect(summary).toEqual({ name: 'w', status: 'connected' });
      expect(urls).toHaveLength(1);
      const url = new URL(urls[0]!);
      expect(url.origin).toBe(world.issuer);
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('resource')).toBe(world.mcpUrl);
      expect(url.searchParams.get('state')).toMatch(/^[\w-]{43}$/);
      const me = whoami(await manager.callTool('w', 'whoami'));
      expect(me.sub).toBe('user-1');
      const after = world.counters();
      expect(after.registrations - before.registrations).toBe(1);
      expect(
        (after.tokenRequests.authorization_code ?? 0) -
          (before.tokenRequests.authorization_code ?? 0),
      ).toBe(1);
      expect(after.mcp.accepted).toBeGreaterThan(before.mcp.accepted);
      const statuses = events
        .filter((e) => (e as { type: string }).type === 'mcp.server.status')
        .map((e) => (e as { status: string }).status);
      expect(statuses).toEqual(['connecting', 'connected']);
    } finally {
      await manager.close();
    }
  });
});

describe('pull mode', () => {
  it('shows needs-auth, hands out the URL, and connects after submitOAuthCallback', async () => {
    const { manager } = managerFor(world);
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).toBe('needs-auth');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(manager.list()[0]?.tools).toEqual([]);
      const first = await manager.authenticate('w');
      expect(first.requiresUserAction).toBe(true);
      expect(new URL(first.authUrl!).origin).toBe(world.issuer);
      // asked again while the login waits: the same URL
      expect(await manager.authenticate('w')).toEqual(first);
      const callback = await world.browse(first.authUrl!);
      expect(await manager.submitOAuthCallback('w', callback)).toEqual({
        name: 'w',
        status: 'connected',
      });
      expect(whoami(await manager.callTool('w', 'whoami')).sub).toBe('user-1');
      expect(await manager.authenticate('w')).toEqual({ requiresUserAction: false });
    } finally {
      await manager.close();
    }
  });
});

describe('stored tokens', () => {
  it('a new manager on the same store connects silently, without a new login', async () => {
    const store: TokenStore = memoryTokenStore();
    const first = managerFor(world, { store, authorize: (url) => world.browse(url) });
    try {
      expect((await first.manager.connectAll())[0]?.status).toBe('connected');
    } finally {
      await first.manager.close();
    }
    const before = world.counters();
    let asked = 0;
    const second = managerFor(world, {
      store,
      authorize: async () => {
        asked++;
        throw new Error('no login expected');
      },
    });
    try {
      expect((await second.manager.connectAll())[0]?.status).toBe('connected');
      expect(whoami(await second.manager.callTool('w', 'whoami')).sub).toBe('user-1');
      expect(asked).toBe(0);
      const after = world.counters();
      expect(after.authorizationRequests).toBe(before.authorizationRequests);
      expect(after.registrations).toBe(before.registrations);
      expect(after.mcp.unauthorized).toBe(before.mcp.unauthorized);
    } finally {
      await second.manager.close();
    }
  });
});

describe('refresh on 401', () => {
  it('five concurrent calls after the token expired share one refresh request', async () => {
    const { manager } = managerFor(world, { authorize: (url) => world.browse(url) });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      world.advanceClock(301); // past the 300 s access-token lifetime, for the MCP server too
      const before = world.counters();
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => manager.callTool('w', 'echo', { text: `call ${i}` })),
      );
      expect(results.map((r) => r.isError ?? false)).toEqual([false, false, false, false, false]);
      const after = world.counters();
      expect(
        (after.tokenRequests.refresh_token ?? 0) - (before.tokenRequests.refresh_token ?? 0),
      ).toBe(1);
      expect(after.authorizationRequests).toBe(before.authorizationRequests);
      expect(after.mcp.refusals.expired ?? 0).toBeGreaterThan(before.mcp.refusals.expired ?? 0);
    } finally {
      await manager.close();
    }
  });
});
