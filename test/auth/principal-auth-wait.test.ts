/**
 * A principal with no sign-in parks (SPEC 15.1 and 15.4): bob's run needs the per-user server
 * `w`, where bob has no token, so it parks on an `auth` wait (server, issuer, principal; no
 * URL, in the stored rows of a real SQLite file either) before its first model request.
 * Another process on the same token store and session store gets a fresh URL with
 * `authenticate('w', { principal: 'bob' })`, the fixture's browser signs bob in, and that
 * process's `submitOAuthCallback` stores bob's tokens and decides the wait; `resume()` then
 * goes on, and bob's call carries bob's token. Alice's runs go on throughout. An `auth` wait
 * past `waits.ttlMs` fails the resumed run with `MCP_AUTH_REQUIRED`. Against a real
 * authorization server (oidc-provider) and the real per-user MCP server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fileTokenStore, oauthNamespace, osUser } from '../../src/auth/index.js';
import type { TokenStore } from '../../src/auth/index.js';
import { createAgent, scriptedModel } from '../../src/index.js';
import type { Agent, AgentEvent, ModelRequest, SessionStore, Wait } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld, PerUserSessions } from '../fixtures/oauth/index.js';
import { startChild } from '../support/child-agent.js';
import { collect, ofType } from '../support/run-helpers.js';
import { REDIRECT_URI } from './oauth-support.js';

const CHILD = resolve(import.meta.dirname, '../fixtures/oauth/auth-wait-child.ts');
const root = mkdtempSync(join(tmpdir(), 'muster-auth-wait-'));
let world: OAuthWorld;
let perUser: PerUserSessions;

beforeAll(async () => {
  world = await startOAuthWorld({ perUser: () => undefined });
  perUser = world.mcpServer.perUser!;
});

afterAll(async () => {
  await world?.close();
  rmSync(root, { recursive: true, force: true });
});

const keyOf = (principal?: string) => oauthNamespace('w', world.mcpUrl, osUser(), principal);

/** Stores a token the authorization server would issue to `sub`, under `principal`'s key. */
async function seed(store: TokenStore, principal: string, sub: string) {
  const token = await world.mintAccessToken({ sub });
  await store.set(keyOf(principal), { tokens: { access_token: token, token_type: 'Bearer' } });
}

/** A model that has every run call `whoami` once, then answer. */
function whoamiModel() {
  const turn = (request: ModelRequest) =>
    request.messages.at(-1)?.role === 'tool'
      ? { text: 'done' }
      : { toolCalls: [{ name: 'mcp__w__whoami', arguments: {} }] };
  return scriptedModel(Array.from({ length: 100 }, () => turn));
}

function agentFor(
  tokens: TokenStore,
  sessions: SessionStore,
  model: ReturnType<typeof whoamiModel>,
  more: { readonly waits?: { readonly ttlMs: number } } = {},
): Agent {
  return createAgent({
    model,
    sessionStore: sessions,
    policy: { allow: ['mcp_connect:w', 'mcp__w__*'] },
    mcpServers: { w: { type: 'http', url: world.mcpUrl } },
    ...(more.waits ? { waits: more.waits } : {}),
    mcp: {
      strictConfig: true,
      protocol: { mode: 'legacy' },
      oauth: {
        w: {
          serverUrl: world.mcpUrl,
          allowedOrigins: [world.issuer],
          redirectUri: REDIRECT_URI,
          store: tokens,
          perPrincipal: true,
        },
      },
    },
  });
}

/** The subjects `whoami` answered in a run's events. */
function subjectsIn(events: readonly AgentEvent[]): string[] {
  return ofType(events, 'tool.completed').map((e) => {
    if (e.isError) return `error: ${e.errorCode} ${e.content}`;
    return (JSON.parse(e.content) as { sub: string }).sub;
  });
}

/** Every row of the SQLite file's tables, as text. */
function everyRow(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    return tables
      .map(({ name }) => JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all()))
      .join('\n');
  } finally {
    db.close();
  }
}

it("bob's run parks on his missing sign-in, another process signs him in, and resume goes on with bob's token; alice's runs go on throughout", async () => {
  const dir = mkdtempSync(join(root, 'park-'));
  const credentials = join(dir, 'credentials.json');
  const db = join(dir, 'sessions.db');
  const tokens = fileTokenStore({ path: credentials });
  await seed(tokens, 'alice', 'alice');
  const sessions = new SqliteSessionStore({ path: db });
  const model = whoamiModel();
  const agent = agentFor(tokens, sessions, model);
  try {
    perUser.clearCalls();
    // bob's run and three of alice's, at once
    const [bob, ...alices] = await Promise.all([
      collect(agent.run({ input: 'who am i', principal: 'bob' })),
      ...[1, 2, 3].map(() => collect(agent.run({ input: 'who am i', principal: 'alice' }))),
    ]);
    for (const alice of alices) {
      expect(alice.error).toBeUndefined();
      expect(subjectsIn(alice.events)).toEqual(['alice']);
      expect(ofType(alice.events, 'session.parked')).toEqual([]);
    }

    // bob's run parked before any model request, on one auth wait naming no URL
    expect(bob.error).toBeUndefined();
    const parked = ofType(bob.events, 'session.parked');
    expect(parked).toHaveLength(1);
    const [wait] = parked[0]!.waits;
    expect(wait).toMatchObject({ kind: 'auth', server: 'w', principal: 'bob', status: 'pending' });
    expect(wait!.url).toBeUndefined();
    expect(wait!.callId).toBeUndefined();
    // the issuer bob's failed connect discovered (no URL of it)
    expect(wait!.issuer).toBe(world.issuer);
    expect(ofType(bob.events, 'model.completed')).toEqual([]);
    const sessionId = bob.events[0]!.sessionId;
    expect((await sessions.get(sessionId))?.status).toBe('parked');
    // two model requests for each of alice's runs, none for bob's
    expect(model.requests).toHaveLength(6);

    // the other process: a fresh URL for bob, never a browser opened
    const other = startChild(
      CHILD,
      {},
      { args: [world.mcpUrl, world.issuer, credentials, db, 'bob'], stdin: true },
    );
    const started = JSON.parse(await other.line('URL')) as {
      authUrl?: string;
      requiresUserAction: boolean;
    };
    expect(started.requiresUserAction).toBe(true);
    const authUrl = new URL(started.authUrl!);

    // no authorization URL (nor its state or PKCE challenge) in any row of the session store
    const rows = everyRow(db);
    expect(rows).toContain(wait!.id);
    for (const leak of [
      authUrl.href,
      `${authUrl.origin}${authUrl.pathname}`,
      authUrl.searchParams.get('state')!,
      authUrl.searchParams.get('code_challenge')!,
    ])
      expect(rows).not.toContain(leak);

    // meanwhile alice goes on, untouched by bob's wait
    const aliceMeanwhile = await collect(agent.run({ input: 'who am i', principal: 'alice' }));
    expect(subjectsIn(aliceMeanwhile.events)).toEqual(['alice']);

    // the fixture's browser signs bob in; the other process submits the callback
    const callback = await world.browse(authUrl.href, { account: 'bob' });
    other.child.stdin!.write(`${callback}\n`);
    expect(JSON.parse(await other.line('RESULT'))).toEqual({ name: 'w', status: 'pending' });
    const seen = JSON.parse(await other.line('WAITS')) as Wait[];
    expect(seen.find((w) => w.id === wait!.id)).toMatchObject({
      status: 'decided',
      decision: { decision: 'allow', reason: 'signed in' },
    });
    expect(await other.exited).toEqual({ code: 0, signal: null });
    expect((await sessions.waits!.get(sessionId, wait!.id))?.status).toBe('decided');

    // resumed here: the run goes on, and bob's call carries bob's token on bob's session
    const resumed = await collect(agent.resume(sessionId, { principal: 'bob' }));
    expect(resumed.error).toBeUndefined();
    const decided = ofType(resumed.events, 'wait.decided');
    expect(decided).toMatchObject([{ waitId: wait!.id, kind: 'auth', applied: true }]);
    expect(subjectsIn(resumed.events)).toEqual(['bob']);
    expect(ofType(resumed.events, 'session.completed')).toHaveLength(1);
    const calls = perUser.stats().calls;
    expect(calls.filter((c) => c.tokenSub === 'bob')).toHaveLength(1);
    expect(calls.filter((c) => c.tokenSub !== c.sessionSub)).toEqual([]);
    expect(calls.filter((c) => c.tokenSub === 'alice')).toHaveLength(4);
    expect(await sessions.waits!.list({ sessionId })).toEqual({ waits: [] });

    // neither the callback's code nor bob's token ever reached the session store
    const after = everyRow(db);
    expect(after).not.toContain(new URL(callback).searchParams.get('code')!);
    const bobToken = (await tokens.get(keyOf('bob')))?.tokens?.access_token;
    expect(bobToken).toBeDefined();
    expect(after).not.toContain(bobToken!);
    expect(after).not.toContain(authUrl.href);
  } finally {
    await agent.close();
    sessions.close();
  }
});

it('an auth wait past waits.ttlMs fails the resumed run with MCP_AUTH_REQUIRED', async () => {
  const dir = mkdtempSync(join(root, 'expired-'));
  const tokens = fileTokenStore({ path: join(dir, 'credentials.json') });
  const sessions = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
  const agent = agentFor(tokens, sessions, whoamiModel(), { waits: { ttlMs: 1 } });
  try {
    const carol = await collect(agent.run({ input: 'who am i', principal: 'carol' }));
    const [wait] = ofType(carol.events, 'session.parked')[0]!.waits;
    expect(wait).toMatchObject({ kind: 'auth', server: 'w', principal: 'carol' });
    const sessionId = carol.events[0]!.sessionId;
    // waited for as a condition: the wait's own expiry has passed
    await expect.poll(() => Date.now() > Date.parse(wait!.expiresAt!)).toBe(true);

    const resumed = await collect(agent.resume(sessionId, { principal: 'carol' }));
    expect(resumed.error?.code).toBe('MCP_AUTH_REQUIRED');
    expect(resumed.error?.details).toMatchObject({ server: 'w', reason: 'login-timeout' });
    expect(resumed.error?.message).toContain("agent.mcp.authenticate('w', { principal })");
    expect(ofType(resumed.events, 'wait.decided')).toMatchObject([
      { waitId: wait!.id, kind: 'auth', expired: true },
    ]);
    expect((await sessions.get(sessionId))?.status).toBe('failed');
    // no model request was ever made for carol
    expect(ofType(resumed.events, 'model.completed')).toEqual([]);
  } finally {
    await agent.close();
    sessions.close();
  }
});
