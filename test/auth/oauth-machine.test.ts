/**
 * Machine access and host providers through `mcp.oauth`, against a real authorization server:
 * client credentials with a secret (basic and post) and with a private-key JWT, the
 * `expectedIssuer` guard, `auth: { type: 'provider' }` with an official provider, step-up on
 * `403 insufficient_scope`, and re-use of the file store by a new agent.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientCredentialsProvider } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { managerFor } from './oauth-support.js';

const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const privateJwk = ecKey.privateKey.export({ format: 'jwk' });
const publicJwk = { ...ecKey.publicKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig' };

let world: OAuthWorld;

beforeAll(async () => {
  world = await startOAuthWorld({
    toolScopes: { write: ['mcp:write'] },
    clients: [
      {
        client_id: 'bot-basic',
        client_secret: 'bot-basic-secret-canary',
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: 'bot-post',
        client_secret: 'bot-post-secret-canary',
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      {
        client_id: 'bot-jwt',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [publicJwk] },
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

function whoami(result: { structuredContent?: unknown }): {
  sub?: string;
  client_id?: string;
  scopes?: string[];
} {
  return (result.structuredContent ?? {}) as {
    sub?: string;
    client_id?: string;
    scopes?: string[];
  };
}

describe('client credentials', () => {
  for (const [clientId, secret] of [
    ['bot-basic', 'bot-basic-secret-canary'],
    ['bot-post', 'bot-post-secret-canary'],
  ] as const) {
    it(`signs in as ${clientId} with its secret, with no person and no browser`, async () => {
      const before = world.counters();
      const { manager, events } = managerFor(world, {
        grant: 'client_credentials',
        clientId,
        clientSecret: secret,
        scope: 'mcp:read',
        expectedIssuer: world.issuer,
      });
      try {
        expect((await manager.connectAll())[0]?.status).toBe('connected');
        expect(whoami(await manager.callTool('w', 'whoami')).client_id).toBe(clientId);
        const after = world.counters();
        expect(
          (after.tokenRequests.client_credentials ?? 0) -
            (before.tokenRequests.client_credentials ?? 0),
        ).toBe(1);
        expect(after.authorizationRequests).toBe(before.authorizationRequests);
        expect(JSON.stringify(events)).not.toContain(secret);
        expect(JSON.stringify(manager.list())).not.toContain(secret);
      } finally {
        await manager.close();
      }
    });
  }

  it('signs in with a private-key JWT', async () => {
    const { manager } = managerFor(world, {
      grant: 'client_credentials',
      clientId: 'bot-jwt',
      privateKeyJwk: { ...privateJwk, kty: privateJwk.kty!, alg: 'ES256' },
      scope: 'mcp:read',
      expectedIssuer: world.issuer,
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      expect(whoami(await manager.callTool('w', 'whoami')).client_id).toBe('bot-jwt');
    } finally {
      await manager.close();
    }
  });

  it('sends no credentials to an authorization server that is not the expected issuer', async () => {
    const before = world.counters();
    const { manager } = managerFor(world, {
      grant: 'client_credentials',
      clientId: 'bot-basic',
      clientSecret: 'bot-basic-secret-canary',
      expectedIssuer: 'https://login.other.example',
    });
    try {
      const [summary] = await manager.connectAll();
      expect(summary?.status).not.toBe('connected');
      expect(summary?.error?.code).toBe('MCP_AUTH_REQUIRED');
      expect(world.counters().tokenRequests.client_credentials ?? 0).toBe(
        before.tokenRequests.client_credentials ?? 0,
      );
    } finally {
      await manager.close();
    }
  });
});

describe('auth: { type: provider }', () => {
  it('uses an official provider; its token is redacted and its 401s are refreshed', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: 'bot-basic',
      clientSecret: 'bot-basic-secret-canary',
      scope: 'mcp:read',
      expectedIssuer: world.issuer,
    });
    const events: unknown[] = [];
    const manager = new McpClientManager(
      { w: { type: 'http', url: world.mcpUrl, auth: { type: 'provider', provider } } },
      { strictConfig: true, protocol: { mode: 'legacy' }, onEvent: (e) => events.push(e) },
    );
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      expect(whoami(await manager.callTool('w', 'whoami')).client_id).toBe('bot-basic');
      const token = provider.tokens()?.access_token;
      expect(token).toBeTruthy();
      world.advanceClock(301);
      expect(whoami(await manager.callTool('w', 'whoami')).client_id).toBe('bot-basic');
      expect(provider.tokens()?.access_token).not.toBe(token);
      expect(JSON.stringify(events)).not.toContain(token!);
    } finally {
      await manager.close();
    }
  });
});

describe('step-up', () => {
  it('a 403 insufficient_scope fails with MCP_AUTH_REQUIRED unless the host allowed step-up', async () => {
    const { manager } = managerFor(world, {
      scope: 'mcp:read',
      authorize: (url) => world.browse(url),
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      const error = await manager.callTool('w', 'write', { text: 'x' }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toMatchObject({
        code: 'MCP_AUTH_REQUIRED',
        details: { reason: 'insufficient-scope' },
      });
    } finally {
      await manager.close();
    }
  });

  it('with stepUp, logs in again for the wider scope and sends the refused call once more', async () => {
    const urls: string[] = [];
    const { manager } = managerFor(world, {
      scope: 'mcp:read',
      stepUp: true,
      authorize: async (url) => {
        urls.push(url);
        return world.browse(url);
      },
    });
    try {
      expect((await manager.connectAll())[0]?.status).toBe('connected');
      const result = await manager.callTool('w', 'write', { text: 'x' });
      expect(result.isError ?? false).toBe(false);
      expect(urls).toHaveLength(2);
      const wider = new URL(urls[1]!).searchParams.get('scope')?.split(' ') ?? [];
      expect(wider).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    } finally {
      await manager.close();
    }
  });
});

describe('the file store', () => {
  it('a new manager in a new home reads the tokens the first one wrote (mode 0600)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'muster-oauth-home-'));
    const previous = process.env['MUSTER_HOME'];
    process.env['MUSTER_HOME'] = home;
    try {
      const first = managerFor(world, { store: 'file', authorize: (url) => world.browse(url) });
      try {
        expect((await first.manager.connectAll())[0]?.status).toBe('connected');
      } finally {
        await first.manager.close();
      }
      expect(statSync(join(home, 'credentials.json')).mode & 0o777).toBe(0o600);
      const before = world.counters();
      const second = managerFor(world, {
        store: 'file',
        authorize: async () => {
          throw new Error('no login expected');
        },
      });
      try {
        expect((await second.manager.connectAll())[0]?.status).toBe('connected');
        expect(world.counters().authorizationRequests).toBe(before.authorizationRequests);
        await second.manager.logout('w');
        expect(second.manager.list()[0]?.status).toBe('needs-auth');
      } finally {
        await second.manager.close();
      }
      const third = managerFor(world, { store: 'file' });
      try {
        expect((await third.manager.connectAll())[0]?.status).toBe('needs-auth');
      } finally {
        await third.manager.close();
      }
    } finally {
      if (previous === undefined) delete process.env['MUSTER_HOME'];
      else process.env['MUSTER_HOME'] = previous;
      rmSync(home, { recursive: true, force: true });
    }
  });
});
