/**
 * A principal's sign-in finished by another process (SPEC 15.4): the `state` and PKCE
 * verifier of a waiting login are kept in the token store under the principal's key, so
 * `submitOAuthCallback(name, url, { principal })` in any process sharing the store completes
 * it: against a real authorization server (oidc-provider) and a real protected MCP server,
 * with two real processes on one credentials file (`MUSTER_HOME`).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileTokenStore, oauthNamespace, osUser } from '../../src/auth/index.js';
import type { TokenStore } from '../../src/auth/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { managerFor } from './oauth-support.js';

const CHILD = resolve(import.meta.dirname, '../fixtures/oauth/principal-login-child.ts');
const root = mkdtempSync(join(tmpdir(), 'muster-principal-login-'));
let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld();
});

afterAll(async () => {
  await world?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A child of the fixture with everything it writes, stdout and stderr, kept for leak checks. */
function child(home: string, args: string[], stdin = false): ChildRun & { all(): string } {
  const run = startChild(
    CHILD,
    { MUSTER_HOME: home },
    { args: [args[0]!, world.mcpUrl, world.issuer, ...args.slice(1)], stdin },
  );
  let out = '';
  run.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return Object.assign(run, { all: () => `${out}\n${run.stderr()}` });
}

/** The `sub` of an access token (a JWT of the fixture's authorization server). */
function subjectOf(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  return (
    JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }
  ).sub;
}

const keyOf = (principal?: string) => oauthNamespace('w', world.mcpUrl, osUser(), principal);

/** What the MCP server's `whoami` sees when called with `token` as the bearer. */
async function whoamiWith(token: string): Promise<unknown> {
  const manager = new McpClientManager(
    { w: { type: 'http', url: world.mcpUrl, headers: { Authorization: `Bearer ${token}` } } },
    { strictConfig: true, protocol: { mode: 'legacy' } },
  );
  try {
    const called = await manager.callTool('w', 'whoami', {});
    return (called.structuredContent as { sub?: unknown } | undefined)?.sub;
  } finally {
    await manager.close();
  }
}

it("process A starts bob's sign-in, process B finishes it: bob's token is stored, once", async () => {
  const home = join(root, 'two-processes');
  const path = join(home, 'credentials.json');
  const store: TokenStore = fileTokenStore({ path });

  // A: a fresh URL for bob, never a browser opened (its host's authorize is not called)
  const a = child(home, ['start', 'bob'], true);
  const started = JSON.parse(await a.line('URL')) as {
    authUrl?: string;
    requiresUserAction: boolean;
  };
  expect(started.requiresUserAction).toBe(true);
  const authUrl = started.authUrl!;
  const state = new URL(authUrl).searchParams.get('state');

  // the login waits in the file, under bob's key only; the file stays 0600
  const pending = (await store.get(keyOf('bob')))?.pendingLogin;
  expect(pending?.state).toBe(state);
  expect(pending?.verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
  expect(pending!.expiresAt).toBeGreaterThan(Date.now());
  expect(pending!.expiresAt).toBeLessThanOrEqual(Date.now() + 180_000);
  expect(await store.get(keyOf())).toBeUndefined();
  if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
  const verifier = pending!.verifier;

  const callback = await world.browse(authUrl, { account: 'bob' });
  const code = new URL(callback).searchParams.get('code')!;

  // a callback with another state is refused, typed, and the login still waits
  const forged = new URL(callback);
  forged.searchParams.set('state', 'not-the-state');
  const b1 = child(home, ['finish', 'bob', forged.href]);
  expect(JSON.parse(await b1.line('ERROR'))).toMatchObject({
    code: 'MCP_AUTH_REQUIRED',
    reason: 'state-mismatch',
  });
  expect(await b1.exited).toEqual({ code: 0, signal: null });
  expect((await store.get(keyOf('bob')))?.pendingLogin?.state).toBe(state);

  // B: another process finishes it with the right callback
  const b2 = child(home, ['finish', 'bob', callback]);
  expect(JSON.parse(await b2.line('RESULT'))).toEqual({ name: 'w', status: 'pending' });
  expect(await b2.exited).toEqual({ code: 0, signal: null });

  // bob's token is stored, the pending login is gone; the local user has nothing
  const bob = await store.get(keyOf('bob'));
  expect(bob?.pendingLogin).toBeUndefined();
  expect(subjectOf(bob?.tokens?.access_token)).toBe('bob');
  expect(await store.get(keyOf())).toBeUndefined();
  if (process.platform !== 'win32') expect(statSync(path).mode & 0o777).toBe(0o600);
  // the server sees bob when called with bob's token
  expect(await whoamiWith(bob!.tokens!.access_token)).toBe('bob');

  // the same callback again, in a third process: nothing waits any more
  const b3 = child(home, ['finish', 'bob', callback]);
  expect(JSON.parse(await b3.line('ERROR'))).toMatchObject({
    code: 'MCP_AUTH_REQUIRED',
    reason: 'no-login',
  });
  expect(await b3.exited).toEqual({ code: 0, signal: null });
  expect(subjectOf((await store.get(keyOf('bob')))?.tokens?.access_token)).toBe('bob');

  // A, asked again, no longer hands out its used URL: bob's stored token answers
  a.child.stdin!.write('again\n');
  expect(JSON.parse(await a.line('AGAIN'))).toEqual({ requiresUserAction: false });
  expect(await a.exited).toEqual({ code: 0, signal: null });

  // canary: the verifier (and the code) never appear in what any process printed: events,
  // statuses, errors, logs
  for (const run of [a, b1, b2, b3]) {
    expect(run.all()).toContain('LIST ');
    expect(run.all()).not.toContain(verifier);
    expect(run.all()).not.toContain('OPENED');
  }
  for (const run of [b1, b2, b3]) expect(run.all()).not.toContain(code);
});

it('a pending login past its deadline is refused in another session and removed', async () => {
  const path = join(root, 'expired', 'credentials.json');
  const store = fileTokenStore({ path });
  const { manager: first } = managerFor(world, { store });
  const { manager: second } = managerFor(world, { store: fileTokenStore({ path }) });
  try {
    const started = await first.authenticate('w', { principal: 'carol' });
    const callback = await world.browse(started.authUrl!, { account: 'carol' });
    // the deadline passes (written in the store as another process's clock would see it)
    await store.update(keyOf('carol'), (s) => ({
      ...s,
      pendingLogin: { ...s!.pendingLogin!, expiresAt: Date.now() - 1 },
    }));
    await expect(
      second.submitOAuthCallback('w', callback, { principal: 'carol' }),
    ).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED', details: { reason: 'login-timeout' } });
    const after = await store.get(keyOf('carol'));
    expect(after?.pendingLogin).toBeUndefined();
    expect(after?.tokens).toBeUndefined();
  } finally {
    await first.close();
    await second.close();
  }
});

it("the local user's sign-in too: started by one manager, finished and connected by another", async () => {
  const path = join(root, 'local', 'credentials.json');
  const { manager: first } = managerFor(world, { store: fileTokenStore({ path }) });
  const { manager: second } = managerFor(world, { store: fileTokenStore({ path }) });
  try {
    const started = await first.authenticate('w');
    expect(started.requiresUserAction).toBe(true);
    const callback = await world.browse(started.authUrl!);
    expect(await second.submitOAuthCallback('w', callback)).toMatchObject({
      name: 'w',
      status: 'connected',
    });
    const me = await second.callTool('w', 'whoami', {});
    expect((me.structuredContent as { sub?: string }).sub).toBe('user-1');
    expect((await fileTokenStore({ path }).get(keyOf()))?.pendingLogin).toBeUndefined();
    // the first manager's own waiting login was used elsewhere: it hands out no stale URL
    expect(await first.authenticate('w')).toEqual({ requiresUserAction: false });
  } finally {
    await first.close();
    await second.close();
  }
});
