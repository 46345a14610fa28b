/**
 * Sign-in from the studio against a real loopback authorization server and a protected MCP
 * server: the studio's mcp.oauth entries (pull mode, the studio's callback, the file store
 * of `muster mcp auth`), POST /signin, the browser's redirect landing on /oauth/callback, and
 * the server connected afterwards. Plus the secrets canaries of the MCP routes.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CallToolResponse,
  ServersResponse,
  SignInResponse,
} from '../../src/studio/api-types.js';
import { fileTokenStore, oauthNamespace, osUser } from '../../src/auth/index.js';
import { signinRoutes, SIGNIN_TTL_MS } from '../../src/studio/signin-routes.js';
import { studioOAuthOptions } from '../../src/studio/studio-oauth.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { startEverythingHttp, stdioConfig } from '../support/mcp-fixtures.js';
import type { EverythingHttp } from '../support/mcp-fixtures.js';
import { mcpStudio } from './mcp-studio-support.js';

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(() => world?.close());

/** A project and a home whose config files declare the world's server (and a stdio one). */
function project(url: string): { workdir: string; home: string } {
  const workdir = mkdtempSync(join(tmpdir(), 'studio-signin-'));
  const home = mkdtempSync(join(tmpdir(), 'studio-home-'));
  mkdirSync(join(workdir, '.muster'));
  writeFileSync(
    join(workdir, '.muster', 'mcp.json'),
    JSON.stringify({ mcpServers: { w: { type: 'http', url } } }),
  );
  writeFileSync(
    join(home, 'mcp.json'),
    JSON.stringify({ mcpServers: { local: stdioConfig('basic-server.mjs') } }),
  );
  return { workdir, home };
}

async function listen(app: Hono): Promise<{ server: ServerType; origin: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({ server, origin: `http://127.0.0.1:${info.port}` }),
    );
  });
}

/** A project declaring the world's server, an app served on loopback, and its OAuth entries. */
async function signInSetup() {
  const { workdir, home } = project(world.mcpUrl);
  const app = new Hono();
  const { server, origin } = await listen(app);
  const oauth = await studioOAuthOptions({
    workdir,
    home,
    origin,
    allowedOrigins: [world.issuer],
  });
  return { workdir, home, app, server, origin, oauth };
}

describe('sign-in', () => {
  it('signs a remote server in through /oauth/callback, with the tokens in the file store', async () => {
    const { workdir, home, app, server, origin, oauth } = await signInSetup();
    expect(Object.keys(oauth)).toEqual(['w']);
    expect(oauth['w']).toMatchObject({
      serverUrl: world.mcpUrl,
      redirectUri: `${origin}/oauth/callback`,
      allowedOrigins: [world.issuer],
    });
    expect(oauth['w']?.authorize).toBeUndefined();
    const studio = mcpStudio({
      app,
      origin,
      servers: { w: { type: 'http', url: world.mcpUrl } },
      oauth,
    });
    try {
      const post = (path: string, body: unknown = {}) =>
        fetch(`${origin}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const started = (await (await post('/api/servers/w/signin')).json()) as SignInResponse;
      expect(started.requiresUserAction).toBe(true);
      expect(new URL(started.authUrl!).origin).toBe(world.issuer);

      const callback = new URL(await world.browse(started.authUrl!));
      expect(`${callback.origin}${callback.pathname}`).toBe(`${origin}/oauth/callback`);
      const landed = await fetch(callback, { redirect: 'manual' });
      expect(landed.status).toBe(302);
      const location = landed.headers.get('location') ?? '';
      expect(location).toBe('/#/signin?signin=ok&server=w');
      expect(landed.headers.get('cache-control')).toBe('no-store');

      const servers = (await (await fetch(`${origin}/api/servers`)).json()) as ServersResponse;
      expect(servers.find((s) => s.name === 'w')?.status).toBe('connected');
      const me = (await (
        await post('/api/servers/w/tools/whoami/call', { arguments: {} })
      ).json()) as CallToolResponse;
      expect(me.result?.structuredContent).toMatchObject({ sub: 'user-1' });
      expect(existsSync(join(home, 'credentials.json'))).toBe(true);

      // the same callback again: no sign-in waits for its state; nothing of it is echoed
      const replay = await fetch(callback, { redirect: 'manual' });
      expect(replay.status).toBe(400);
      const page = await replay.text();
      expect(page).toContain('MCP_AUTH_REQUIRED');
      expect(page).toContain('href="/#/signin"');
      for (const secret of [callback.searchParams.get('code'), callback.searchParams.get('state')])
        expect(page).not.toContain(secret);
    } finally {
      await studio.close();
      await new Promise((resolve) => server.close(resolve));
    }

    // a later start, on another port: the origins the stored sign-in used are trusted with no
    // --allowed-origin, and a new sign-in (after a logout) lands on the new callback
    const app2 = new Hono();
    const second = await listen(app2);
    const again = await studioOAuthOptions({
      workdir,
      home,
      origin: second.origin,
      allowedOrigins: [],
    });
    expect(again['w']?.allowedOrigins).toContain(world.issuer);
    const studio2 = mcpStudio({
      app: app2,
      origin: second.origin,
      servers: { w: { type: 'http', url: world.mcpUrl } },
      oauth: again,
    });
    try {
      // the tokens stopped working (dropped), the client registered for the old port is kept
      const store = fileTokenStore({ path: join(home, 'credentials.json') });
      await store.update(oauthNamespace('w', new URL(world.mcpUrl).href, osUser()), (state) => {
        const { tokens: _dropped, ...rest } = state ?? {};
        return rest;
      });
      const started = (await (
        await fetch(`${second.origin}/api/servers/w/signin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).json()) as SignInResponse;
      const callback = new URL(await world.browse(started.authUrl!));
      expect(callback.origin).toBe(second.origin);
      const landed = await fetch(callback, { redirect: 'manual' });
      expect(landed.headers.get('location')).toBe('/#/signin?signin=ok&server=w');
      expect(studio2.ctx.agent.mcp.list()[0]?.status).toBe('connected');
    } finally {
      await studio2.close();
      await new Promise((resolve) => second.server.close(resolve));
    }
  }, 60_000);

  it('forgets a sign-in not finished within 10 minutes: its callback is refused', async () => {
    const { app, server, origin, oauth } = await signInSetup();
    // the routes under test on the served app, with a clock the test moves
    const studio = mcpStudio({
      origin,
      servers: { w: { type: 'http', url: world.mcpUrl } },
      oauth,
    });
    let clock = 1_000_000;
    signinRoutes(app, studio.ctx, { now: () => clock });
    try {
      const started = (await (
        await fetch(`${origin}/api/servers/w/signin`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).json()) as SignInResponse;
      const callback = new URL(await world.browse(started.authUrl!));
      clock += SIGNIN_TTL_MS;
      const late = await fetch(callback, { redirect: 'manual' });
      expect(late.status).toBe(400);
      expect(await late.text()).toContain('MCP_AUTH_REQUIRED');
      expect(studio.ctx.agent.mcp.list()[0]?.status).not.toBe('connected');
    } finally {
      await studio.close();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('a callback whose state no sign-in is waiting for shows the error code and a way back', async () => {
    const studio = mcpStudio();
    try {
      const r = await studio.app.request('/oauth/callback?code=abc-code&state=unknown-state');
      expect(r.status).toBe(400);
      const page = await r.text();
      expect(page).toContain('MCP_AUTH_REQUIRED');
      expect(page).not.toContain('abc-code');
      expect(page).not.toContain('unknown-state');
    } finally {
      await studio.close();
    }
  });
});

describe('secrets canary', () => {
  let everything: EverythingHttp;
  beforeAll(async () => {
    everything = await startEverythingHttp();
  });
  afterAll(() => everything?.close());

  it('no header, bearer token or env value of a server config appears in any response', async () => {
    const HEADER = 'canary-header-5f1e2d';
    const BEARER = 'canary-bearer-9a7c3b';
    const ENV = 'canary-env-4d8e6f';
    const studio = mcpStudio({
      servers: {
        local: { ...stdioConfig('basic-server.mjs'), env: { API_KEY: ENV } },
      },
    });
    try {
      const requests: [string, string, unknown?][] = [
        [
          'POST',
          '/api/servers',
          {
            name: 'remote',
            config: {
              type: 'http',
              url: everything.url,
              headers: { Authorization: `Bearer ${BEARER}`, 'X-Api-Key': HEADER },
            },
          },
        ],
        // refused declarations carrying the secrets
        [
          'POST',
          '/api/servers',
          { name: 'bad', config: { command: 'node', headers: { A: HEADER } } },
        ],
        [
          'POST',
          '/api/servers',
          {
            name: 'denied',
            config: {
              type: 'http',
              url: world.mcpUrl,
              headers: { Authorization: `Bearer ${BEARER}` },
            },
          },
        ],
        ['GET', '/api/servers'],
        ['GET', '/api/servers/remote/tools'],
        ['GET', '/api/servers/local/tools'],
        ['POST', '/api/servers/remote/tools/echo/call', { arguments: { message: 'x' } }],
        ['POST', '/api/servers/remote/tools/echo/call', { arguments: {} }],
        ['GET', '/api/servers/remote/resources'],
        ['GET', '/api/servers/remote/prompts'],
        ['POST', '/api/servers/remote/reconnect'],
        ['POST', '/api/servers/remote/signin'],
        ['POST', '/api/servers/local/reconnect'],
      ];
      for (const [method, path, body] of requests) await studio.call(method, path, body);
      expect(studio.bodies.some((b) => b.includes('"name":"remote"'))).toBe(true);
      const seen = [...studio.bodies, JSON.stringify(studio.events.events)].join('\n');
      for (const secret of [HEADER, BEARER, ENV]) expect(seen).not.toContain(secret);
    } finally {
      await studio.close();
    }
  }, 60_000);
});
