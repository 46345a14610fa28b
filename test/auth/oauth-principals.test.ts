/**
 * Sign-ins per principal (SPEC 15.4) against a real authorization server (oidc-provider) and
 * a real MCP server: `authenticate`, `submitOAuthCallback` and `logout` with `{ principal }`
 * keep each principal's login (`state`, PKCE verifier) and tokens under its own key, apart
 * from the local user's and from each other's (`alice:w` is not `alice`).
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memoryTokenStore, oauthNamespace, osUser } from '../../src/auth/index.js';
import type { TokenStore } from '../../src/auth/index.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { RecordingProvider } from './oauth-fixture-helpers.js';
import { managerFor } from './oauth-support.js';

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});

afterAll(async () => {
  await world?.close();
});

/** The `sub` of the access token stored under `principal` (the local user when absent). */
async function subjectIn(store: TokenStore, principal?: string): Promise<string | null> {
  const state = await store.get(oauthNamespace('w', world.mcpUrl, osUser(), principal));
  const token = state?.tokens?.access_token;
  if (token === undefined) return null;
  const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
    sub: string;
  };
  return payload.sub;
}

/** Every access and refresh token the store holds for the three users, for leak checks. */
async function tokensIn(store: TokenStore): Promise<string[]> {
  const out: string[] = [];
  for (const p of [undefined, 'alice:w', 'alice']) {
    const t = (await store.get(oauthNamespace('w', world.mcpUrl, osUser(), p)))?.tokens;
    if (t?.access_token) out.push(t.access_token);
    if (t?.refresh_token) out.push(t.refresh_token);
  }
  return out;
}

it('alice:w, alice and the local user sign in apart; logout of one leaves the others', async () => {
  const store = memoryTokenStore();
  const { manager } = managerFor(world, { store });
  const errors: unknown[] = [];
  try {
    // the local user, as before principals: connects after its own sign-in
    const local = await manager.authenticate('w');
    await manager.submitOAuthCallback('w', await world.browse(local.authUrl!));
    expect(manager.list()[0]?.status).toBe('connected');

    // two principals whose ids a naive key would confuse, both waiting at once
    const aliceW = await manager.authenticate('w', { principal: 'alice:w' });
    const alice = await manager.authenticate('w', { principal: 'alice' });
    expect(aliceW.requiresUserAction).toBe(true);
    expect(alice.requiresUserAction).toBe(true);
    const stateOf = (url: string) => new URL(url).searchParams.get('state');
    expect(stateOf(aliceW.authUrl!)).not.toBe(stateOf(alice.authUrl!));
    // asked again while it waits: the same login, not a new one
    expect(await manager.authenticate('w', { principal: 'alice' })).toEqual(alice);

    const aliceWCallback = await world.browse(aliceW.authUrl!, { account: 'alice-w' });
    const aliceCallback = await world.browse(alice.authUrl!, { account: 'alice' });
    // one principal's callback does not finish another's login (its state is not theirs)
    const crossed = await manager
      .submitOAuthCallback('w', aliceWCallback, { principal: 'alice' })
      .catch((err: unknown) => err);
    errors.push(crossed);
    expect(crossed).toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(await manager.submitOAuthCallback('w', aliceCallback, { principal: 'alice' })).toEqual({
      name: 'w',
      status: 'pending',
    });
    await manager.submitOAuthCallback('w', aliceWCallback, { principal: 'alice:w' });

    // each user's token sits under its own key
    expect(await subjectIn(store)).toBe('user-1');
    expect(await subjectIn(store, 'alice:w')).toBe('alice-w');
    expect(await subjectIn(store, 'alice')).toBe('alice');
    // stored tokens answer without a login
    expect(await manager.authenticate('w', { principal: 'alice' })).toEqual({
      requiresUserAction: false,
    });

    // logout of one principal: only its tokens go; the connection stays the local user's
    await manager.logout('w', { principal: 'alice:w' });
    expect(await subjectIn(store, 'alice:w')).toBeNull();
    expect(await subjectIn(store, 'alice')).toBe('alice');
    expect(await subjectIn(store)).toBe('user-1');
    expect(manager.list()[0]?.status).toBe('connected');
    const me = await manager.callTool('w', 'whoami');
    expect((me.structuredContent as { sub?: string }).sub).toBe('user-1');

    // logout without a principal: only the local user's
    await manager.logout('w');
    expect(await subjectIn(store)).toBeNull();
    expect(await subjectIn(store, 'alice')).toBe('alice');

    // nothing the host sees carries a token
    const secrets = await tokensIn(store);
    expect(secrets.length).toBeGreaterThan(0);
    const shown = inspect([manager.list(), errors], { depth: 10 });
    for (const secret of secrets) expect(shown).not.toContain(secret);
  } finally {
    await manager.close();
  }
});

it('a bad principal id fails typed, before anything is sent or stored', async () => {
  const store = memoryTokenStore();
  const { manager } = managerFor(world, { store });
  try {
    const before = world.counters();
    for (const principal of ['', 'x'.repeat(257), 'alice\nbob', 'nul\u0000'] as const) {
      for (const call of [
        () => manager.authenticate('w', { principal }),
        () =>
          manager.submitOAuthCallback('w', 'http://127.0.0.1:53682/callback?code=c', { principal }),
        () => manager.logout('w', { principal }),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION' });
      }
    }
    const after = world.counters();
    expect(after.authorizationRequests).toBe(before.authorizationRequests);
    expect(after.registrations).toBe(before.registrations);
    expect(after.mcp.requests).toBe(before.mcp.requests);
    expect(manager.list()[0]?.status).toBe('pending');
  } finally {
    await manager.close();
  }
});

it('a host provider keeps its own tokens, so a principal on it is refused before anything is sent', async () => {
  const { manager } = managerFor(world, { provider: new RecordingProvider() });
  try {
    const before = world.counters();
    await expect(manager.authenticate('w', { principal: 'alice' })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      message: expect.stringContaining('host provider') as unknown,
    });
    await expect(manager.logout('w', { principal: 'alice' })).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
    });
    expect(world.counters().authorizationRequests).toBe(before.authorizationRequests);
  } finally {
    await manager.close();
  }
});
