/**
 * Concurrency and failure paths of OAuth against a real authorization server: concurrent
 * step-ups share one login, a store shared by two managers refreshes once, a failing token
 * endpoint fails calls as not run, a close during discovery starts no login, an untrusted
 * authorization endpoint is never handed out, a pull-mode step-up keeps the registration a
 * refresh needs, logout during a code exchange wins, and a token endpoint that echoes the
 * request leaks nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryTokenStore } from '../../src/index.js';
import type { StoredOAuthState, TokenStore } from '../../src/index.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { managerFor, textOf } from './oauth-support.js';

let world: OAuthWorld;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  world = await startOAuthWorld({ toolScopes: { write: ['mcp:write'] } });
});

afterEach(() => {
  globalThis.fetch = realFetch;
  world.authServer.setMetadataOverride(undefined);
});

afterAll(async () => {
  await world?.close();
});

function urlOf(input: string | URL | Request): URL {
  return new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
}

/** Sees every request the process makes with the global fetch, and may hold it back. */
function watchFetch(onRequest: (url: URL, init?: RequestInit) => Promise<void> | void): void {
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    await onRequest(urlOf(input), init);
    return realFetch(input, init);
  }) as typeof fetch;
}

/** A store that can tell whether any entry still holds tokens. */
function inspectableStore(): { store: TokenStore; anyTokens(): Promise<boolean> } {
  const inner = memoryTokenStore();
  const keys = new Set<string>();
  const track = (k: string) => void keys.add(k);
  return {
    store: {
      get: (k) => inner.get(k),
      set: (k, v) => (track(k), inner.set(k, v)),
      delete: (k) => inner.delete(k),
      update: (k, change: (c: StoredOAuthState | undefined) => StoredOAuthState | undefined) => (
        track(k),
        inner.update(k, change)
      ),
    },
    anyTokens: async () => {
      for (const k of keys) if ((await inner.get(k))?.tokens) return true;
      return false;
    },
  };
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{
  origin: string;
  close(): Promise<void>;
}> {
  const server: Server = createServer(handler!);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('step-up', () => {
  it('three calls refused for lack of scope at once share one wider login', async () => {
    let logins = 0;
    const { manager } = managerFor(world, {
      scope: 'mcp:read',
      stepUp: true,
      authorize: async (url) => {
        logins++;
        return world.browse(url);
      },
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      const results = await Promise.all(
        [1, 2, 3].map((i) => manager.callTool('w', 'write', { text: `w${i}` })),
      );
      expect(results.map((r) => r.isError ?? false)).toEqual([false, false, false]);
      expect(logins).toBe(2); // the first sign-in, then one step-up for all three
    } finally {
      await manager.close();
    }
  });

  it('in pull mode, a refused call keeps the registration: a later refresh still works, then authenticate widens', async () => {
    const { manager } = managerFor(world, { scope: 'mcp:read', stepUp: true });
    try {
      await manager.connectAll();
      const first = await manager.authenticate('w');
      await manager.submitOAuthCallback('w', await world.browse(first.authUrl!));
      const refused = await manager.callTool('w', 'write', { text: 'x' }).catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'MCP_AUTH_REQUIRED',
        details: { reason: 'insufficient-scope' },
      });
      world.advanceClock(301);
      expect((await manager.callTool('w', 'echo', { text: 'still here' })).isError ?? false).toBe(
        false,
      );
      const wider = await manager.authenticate('w');
      expect(wider.requiresUserAction).toBe(true);
      expect(new URL(wider.authUrl!).searchParams.get('scope')?.split(' ')).toEqual(
        expect.arrayContaining(['mcp:read', 'mcp:write']),
      );
      await manager.submitOAuthCallback('w', await world.browse(wider.authUrl!));
      expect((await manager.callTool('w', 'write', { text: 'now' })).isError ?? false).toBe(false);
      expect(await manager.authenticate('w')).toEqual({ requiresUserAction: false });
    } finally {
      await manager.close();
    }
  });
});

describe('a shared store', () => {
  it('a manager whose token another one refreshed uses the new token without refreshing again', async () => {
    const store = memoryTokenStore();
    const a = managerFor(world, { store, authorize: (url) => world.browse(url) });
    const b = managerFor(world, { store, authorize: () => Promise.reject(new Error('no login')) });
    try {
      expect((await a.manager.connectAll())[0]?.status).toBe('connected');
      expect((await b.manager.connectAll())[0]?.status).toBe('connected');
      world.advanceClock(301);
      const before = world.counters().tokenRequests.refresh_token ?? 0;
      expect((await a.manager.callTool('w', 'echo', { text: 'a' })).isError ?? false).toBe(false);
      expect((await b.manager.callTool('w', 'echo', { text: 'b' })).isError ?? false).toBe(false);
      expect((world.counters().tokenRequests.refresh_token ?? 0) - before).toBe(1);
      expect(b.manager.list()[0]?.status).toBe('connected');
    } finally {
      await a.manager.close();
      await b.manager.close();
    }
  });
});

describe('failures of the authorization server', () => {
  it('a token endpoint that fails makes the call MCP_AUTH_REQUIRED (not run), never unknown', async () => {
    const broken = await listen((_req, res) => res.writeHead(500).end('down'));
    const inner = memoryTokenStore();
    // a store that keeps tokens but no cached discovery, so the refresh discovers again
    const store: TokenStore = {
      get: async (k) => {
        const v = await inner.get(k);
        if (!v) return v;
        const { discovery: _d, ...rest } = v;
        return rest;
      },
      set: (k, v) => inner.set(k, v),
      delete: (k) => inner.delete(k),
      update: (k, change) => inner.update(k, change),
    };
    const first = managerFor(world, { store, authorize: (url) => world.browse(url) });
    expect((await first.manager.connectAll())[0]?.status).toBe('connected');
    await first.manager.close();
    world.authServer.setMetadataOverride({ token_endpoint: `${broken.origin}/token` });
    const { manager } = managerFor(world, {
      store,
      allowedOrigins: [world.issuer, broken.origin],
      authorize: () => Promise.reject(new Error('no login')),
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      world.advanceClock(301);
      // the call never ran: no tools/call reached the tool (the client's own background
      // traffic, such as the GET stream it opens after connecting, may still arrive)
      const before = world.counters().mcp.acceptedCalls;
      const error = await manager.callTool('w', 'echo', { text: 'x' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
      expect(world.counters().mcp.acceptedCalls).toBe(before);
    } finally {
      await manager.close();
      await broken.close();
    }
  });

  it('never hands out an authorization URL outside the trusted origins', async () => {
    let asked = 0;
    world.authServer.setMetadataOverride({
      authorization_endpoint: 'http://evil.example/authorize',
    });
    const { manager } = managerFor(world, {
      authorize: async (url) => {
        asked++;
        return world.browse(url);
      },
    });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).not.toBe('connected');
      expect(summary?.error?.message).toMatch(/allowedOrigins/);
      expect(asked).toBe(0);
    } finally {
      await manager.close();
    }
  });

  it('a token endpoint that echoes the request leaks neither the code nor the verifier', async () => {
    let body = '';
    const echo = await listen((req, res) => {
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () =>
        res.writeHead(400, { 'content-type': 'text/plain' }).end(`bad request: ${body}`),
      );
    });
    world.authServer.setMetadataOverride({ token_endpoint: `${echo.origin}/token` });
    const { manager } = managerFor(world, { allowedOrigins: [world.issuer, echo.origin] });
    try {
      await manager.connectAll();
      const { authUrl } = await manager.authenticate('w');
      const callback = await world.browse(authUrl!);
      const error = await manager.submitOAuthCallback('w', callback).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
      const sent = new URLSearchParams(body);
      const secrets = [sent.get('code'), sent.get('code_verifier')];
      expect(secrets.every((s) => typeof s === 'string' && s.length > 8)).toBe(true);
      const text = textOf(error);
      for (const s of secrets) expect(text.includes(s!)).toBe(false);
    } finally {
      await manager.close();
      await echo.close();
    }
  });
});

describe('close and logout', () => {
  it('closing during discovery starts no login', async () => {
    let asked = 0;
    let discovering: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (discovering = resolve));
    watchFetch(async (url) => {
      if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
        discovering();
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    });
    const { manager } = managerFor(world, {
      authorize: async (url) => {
        asked++;
        return world.browse(url);
      },
    });
    const connecting = manager.connectAll();
    await reached;
    await manager.close();
    await connecting.catch(() => undefined);
    // longer than the held discovery takes, so a login it would start has had its chance
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(asked).toBe(0);
  });

  it('logout during a code exchange wins: the tokens do not come back', async () => {
    const { store, anyTokens } = inspectableStore();
    let exchanging: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (exchanging = resolve));
    const { manager } = managerFor(world, { store });
    try {
      await manager.connectAll();
      const { authUrl } = await manager.authenticate('w');
      const callback = await world.browse(authUrl!);
      watchFetch(async (url, init) => {
        if (
          url.origin === world.issuer &&
          init?.method === 'POST' &&
          String(init.body).includes('authorization_code')
        ) {
          exchanging();
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      });
      const submitted = manager.submitOAuthCallback('w', callback).catch((e: unknown) => e);
      await reached;
      await manager.logout('w');
      await submitted;
      expect(await anyTokens()).toBe(false);
      expect(manager.list()[0]?.status).not.toBe('connected');
    } finally {
      await manager.close();
    }
  });
});
