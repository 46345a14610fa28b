/**
 * Canaries: the client secret, access and refresh tokens, authorization codes, PKCE
 * verifiers and authorization URLs of real logins never appear in events, `list()`, errors
 * (message, details, cause chain) or stored sessions (a real SQLite file), through logins,
 * tool calls, a refresh, a refused callback and a logout.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, memoryTokenStore, scriptedModel } from '../../src/index.js';
import type { AgentEvent, StoredOAuthState, TokenStore } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { REDIRECT_URI, managerFor, recordTokenRequests, textOf } from './oauth-support.js';

const CLIENT_SECRET = 'client-secret-canary-7f3a9b21';

let world: OAuthWorld;
let dir: string;

beforeAll(async () => {
  world = await startOAuthWorld({
    clients: [
      {
        client_id: 'app-confidential',
        client_secret: CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'muster-oauth-canary-'));
});

afterAll(async () => {
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A store that remembers every state it was given, so the test knows every token issued. */
function recordingStore(): { store: TokenStore; seen: StoredOAuthState[] } {
  const inner = memoryTokenStore();
  const seen: StoredOAuthState[] = [];
  const note = (s: StoredOAuthState | undefined) => {
    if (s) seen.push(structuredClone(s));
    return s;
  };
  return {
    seen,
    store: {
      get: (k) => inner.get(k),
      set: (k, v) => (note(v), inner.set(k, v)),
      delete: (k) => inner.delete(k),
      update: async (k, change) => note(await inner.update(k, change)),
    },
  };
}

describe('secrets never leak', () => {
  it('through logins, calls, a refresh, a refused callback and a logout', async () => {
    const wire = recordTokenRequests(world.issuer);
    const { store, seen } = recordingStore();
    const authUrls: string[] = [];
    const callbacks: string[] = [];
    const events: AgentEvent[] = [];
    const errors: unknown[] = [];
    const sessions = new SqliteSessionStore({ path: join(dir, 'sessions.db') });
    const agent = createAgent({
      model: scriptedModel([
        { toolCalls: [{ name: 'mcp__w__echo', arguments: { text: 'one' } }] },
        { text: 'first done' },
        { toolCalls: [{ name: 'mcp__w__whoami', arguments: {} }] },
        { text: 'second done' },
      ]),
      sessionStore: sessions,
      policy: { allow: ['mcp_connect:w', 'mcp__w__*'] },
      observability: { onEvent: (e) => void events.push(e) },
      mcpServers: { w: { type: 'http', url: world.mcpUrl } },
      mcp: {
        strictConfig: true,
        protocol: { mode: 'legacy' },
        oauth: {
          w: {
            serverUrl: world.mcpUrl,
            allowedOrigins: [world.issuer],
            redirectUri: REDIRECT_URI,
            clientId: 'app-confidential',
            clientSecret: CLIENT_SECRET,
            store,
            authorize: async (url) => {
              authUrls.push(url);
              const callback = await world.browse(url);
              callbacks.push(callback);
              return callback;
            },
          },
        },
      },
    });
    let sessionId = '';
    try {
      const first = await agent.send('call echo');
      sessionId = first.sessionId;
      expect(first.text).toBe('first done');
      world.advanceClock(301); // the next call is refused, refreshed and sent again
      const second = await agent.send('who am i', { sessionId });
      expect(second.text).toBe('second done');
      // a forged callback while no login waits, and a pull-style submit
      await agent.mcp
        .submitOAuthCallback('w', `${callbacks[0]}&code=again`)
        .catch((err: unknown) => errors.push(err));
      await agent.mcp.logout('w');
      await agent.mcp
        .callTool('w', 'echo', { text: 'x' })
        .catch((err: unknown) => errors.push(err));
    } finally {
      await agent.close();
      wire.stop();
    }
    expect(authUrls).toHaveLength(2);
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['MCP_AUTH_REQUIRED']);

    const secrets = new Set<string>([CLIENT_SECRET]);
    for (const s of seen) {
      if (s.tokens?.access_token) secrets.add(s.tokens.access_token);
      if (s.tokens?.refresh_token) secrets.add(s.tokens.refresh_token);
    }
    for (const url of authUrls) secrets.add(url);
    for (const cb of callbacks) {
      const code = new URL(cb).searchParams.get('code');
      if (code) secrets.add(code);
    }
    for (const body of wire.record.tokenBodies) {
      const verifier = body.get('code_verifier');
      if (verifier) secrets.add(verifier);
    }
    const kinds = {
      accessTokens: seen.filter((s) => s.tokens?.access_token).length,
      refreshes: wire.record.tokenBodies.filter((b) => b.get('grant_type') === 'refresh_token')
        .length,
      verifiers: wire.record.tokenBodies.filter((b) => b.get('code_verifier')).length,
    };
    // the canaries are real: a login, a refresh and a code redemption happened
    expect(kinds.accessTokens).toBeGreaterThanOrEqual(2);
    expect(kinds.refreshes).toBe(1);
    expect(kinds.verifiers).toBe(2);

    const stored = await sessions.get(sessionId);
    const places: Record<string, string> = {
      events: textOf(events),
      list: textOf(agent.mcp.list()),
      errors: textOf(errors),
      session: textOf(stored),
      sessionFile: readFileSync(join(dir, 'sessions.db')).toString('latin1'),
    };
    for (const [where, text] of Object.entries(places)) {
      for (const secret of secrets) {
        expect(text.includes(secret), `${where} holds a secret (${secret.slice(0, 6)}…)`).toBe(
          false,
        );
      }
    }
  });

  it('through refused callbacks of a pull-mode login', async () => {
    const wire = recordTokenRequests(world.issuer);
    const { manager, events } = managerFor(world);
    const errors: unknown[] = [];
    const secrets = new Set<string>();
    try {
      await manager.connectAll();
      const { authUrl } = await manager.authenticate('w');
      secrets.add(authUrl!);
      const callback = new URL(await world.browse(authUrl!));
      secrets.add(callback.searchParams.get('code')!);
      secrets.add(callback.searchParams.get('state')!);
      const wrongState = new URL(callback);
      wrongState.searchParams.set('state', 'x'.repeat(43));
      const wrongIss = new URL(callback);
      wrongIss.searchParams.set('iss', 'http://127.0.0.1:9');
      for (const forged of [
        `${callback.href}&code=${callback.searchParams.get('code')}`,
        wrongState.href,
        new URL('/elsewhere' + callback.search, callback).href,
        wrongIss.href,
      ]) {
        await manager.submitOAuthCallback('w', forged).catch((err: unknown) => errors.push(err));
      }
      expect(errors.map((e) => (e as { details?: { reason?: string } }).details?.reason)).toEqual([
        'duplicate-parameter',
        'state-mismatch',
        'wrong-destination',
        'issuer-mismatch',
      ]);
    } finally {
      await manager.close();
      wire.stop();
    }
    for (const body of wire.record.tokenBodies) {
      const verifier = body.get('code_verifier');
      if (verifier) secrets.add(verifier);
    }
    const places = { events: textOf(events), list: textOf(manager.list()), errors: textOf(errors) };
    for (const [where, text] of Object.entries(places)) {
      for (const secret of secrets) {
        expect(text.includes(secret), `${where} holds a secret (${secret.slice(0, 6)}…)`).toBe(
          false,
        );
      }
    }
  });
});
