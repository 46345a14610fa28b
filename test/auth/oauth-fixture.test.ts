// The OAuth world fixture, driven by the official MCP client's own OAuth code over real
// loopback HTTP: if these pass, the fixture is a standards-complete authorization server
// and a resource server that refuses every token it should.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  ClientCredentialsProvider,
  PrivateKeyJwtProvider,
} from '@modelcontextprotocol/client';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import type { JWK } from 'jose';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import {
  connect,
  rawToolCall,
  RecordingProvider,
  REDIRECT_URL,
  refreshWith,
  signIn,
  whoami,
} from './oauth-fixture-helpers.js';

describe('OAuth world: authorization code + PKCE + dynamic registration', () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({ toolScopes: { write: ['mcp:write'] } });
  });
  afterAll(() => world.close());

  it('advertises RFC 8414 and OIDC metadata with the same content, and RFC 9728 metadata', async () => {
    const [rfc8414, oidc, prm] = await Promise.all(
      [
        `${world.issuer}/.well-known/oauth-authorization-server`,
        `${world.issuer}/.well-known/openid-configuration`,
        world.resourceMetadataUrl,
      ].map(async (url) => (await fetch(url)).json() as Promise<Record<string, unknown>>),
    );
    expect(rfc8414).toEqual(oidc);
    expect(rfc8414).toMatchObject({
      issuer: world.issuer,
      authorization_response_iss_parameter_supported: true,
      code_challenge_methods_supported: ['S256'],
      registration_endpoint: `${world.issuer}/reg`,
    });
    expect(rfc8414['grant_types_supported']).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']),
    );
    expect(rfc8414['token_endpoint_auth_methods_supported']).toEqual(
      expect.arrayContaining([
        'none',
        'client_secret_basic',
        'client_secret_post',
        'private_key_jwt',
      ]),
    );
    expect(rfc8414['scopes_supported']).toEqual(
      expect.arrayContaining(['offline_access', 'mcp:read', 'mcp:write']),
    );
    expect(prm).toEqual({
      resource: world.mcpUrl,
      authorization_servers: [world.issuer],
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'oauth-world MCP server',
    });
  });

  it('answers an unauthenticated request with 401 and a resource_metadata challenge', async () => {
    const before = world.counters().mcp.unauthorized;
    const { status, challenge } = await rawToolCall(world, undefined);
    expect(status).toBe(401);
    expect(challenge).toBe(
      `Bearer resource_metadata="${world.resourceMetadataUrl}", scope="mcp:read mcp:write"`,
    );
    expect(world.counters().mcp.unauthorized).toBe(before + 1);
  });

  it('signs in with auth(), browse() and the callback, then calls tools with the token', async () => {
    const provider = new RecordingProvider();
    const before = world.counters();
    const callback = await signIn(world, provider);

    // The callback goes to the client's redirect_uri with the state it sent and RFC 9207 iss.
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URL);
    expect(callback.searchParams.get('state')).toBe(provider.states[0]);
    expect(callback.searchParams.get('iss')).toBe(world.issuer);
    const requested = provider.authorizationUrl?.searchParams;
    expect(requested?.get('code_challenge_method')).toBe('S256');
    expect(requested?.get('resource')).toBe(world.mcpUrl);
    // auth() adds offline_access because clientMetadata.grant_types lists refresh_token.
    expect(requested?.get('scope')).toBe('mcp:read mcp:write offline_access');

    const tokens = provider.tokens();
    expect(tokens?.refresh_token).toBeTruthy();
    const claims = decodeJwt(tokens?.access_token ?? '');
    expect(claims).toMatchObject({ iss: world.issuer, aud: world.mcpUrl, sub: 'user-1' });
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(300);

    const after = world.counters();
    expect(after.registrations).toBe(before.registrations + 1);
    expect(after.authorizationRequests).toBe(before.authorizationRequests + 1);
    expect(after.tokenRequests['authorization_code']).toBe(
      (before.tokenRequests['authorization_code'] ?? 0) + 1,
    );

    const client = await connect(world, provider);
    try {
      const echo = (await client.callTool({
        name: 'echo',
        arguments: { text: 'through the gate' },
      })) as CallToolResult;
      expect(echo.content).toEqual([{ type: 'text', text: 'through the gate' }]);
      const clientId = provider.clientInformation()?.client_id;
      expect(await whoami(client)).toEqual({
        sub: 'user-1',
        client_id: clientId,
        scopes: ['mcp:read', 'mcp:write'],
      });
    } finally {
      await client.close();
    }
  });

  it('refreshes after the access token expires on the world clock', async () => {
    const provider = new RecordingProvider();
    await signIn(world, provider);
    const client = await connect(world, provider);
    try {
      expect(await whoami(client)).toMatchObject({ sub: 'user-1' });
      const first = provider.tokens();
      const before = world.counters();

      world.advanceClock(301);
      expect(await whoami(client)).toMatchObject({ sub: 'user-1' });

      const after = world.counters();
      expect(after.mcp.unauthorized).toBe(before.mcp.unauthorized + 1);
      expect(after.mcp.refusals.expired).toBe((before.mcp.refusals.expired ?? 0) + 1);
      expect(after.tokenRequests['refresh_token']).toBe(
        (before.tokenRequests['refresh_token'] ?? 0) + 1,
      );
      expect(after.authorizationRequests).toBe(before.authorizationRequests);
      const second = provider.tokens();
      expect(second?.access_token).not.toBe(first?.access_token);
      // 'rotate' (the default): the refresh token is replaced on every use.
      expect(second?.refresh_token).toBeTruthy();
      expect(second?.refresh_token).not.toBe(first?.refresh_token);

      // Reusing the rotated-out refresh token is refused and revokes the grant: the current
      // refresh token stops working too.
      const reuse = await refreshWith(world, provider, first?.refresh_token ?? '');
      expect(reuse.status).toBe(400);
      expect(reuse.body['error']).toBe('invalid_grant');
      expect((await refreshWith(world, provider, second?.refresh_token ?? '')).status).toBe(400);
    } finally {
      await client.close();
    }
  });

  it('logs in the account browse() is told to', async () => {
    const provider = new RecordingProvider();
    await signIn(world, provider, { account: 'user-2' });
    expect(decodeJwt(provider.tokens()?.access_token ?? '').sub).toBe('user-2');
  });

  it('refuses a public client that sends no PKCE challenge', async () => {
    const provider = new RecordingProvider();
    await auth(provider, { serverUrl: world.mcpUrl });
    const url = new URL(String(provider.authorizationUrl));
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const callback = new URL(await world.browse(url.href));
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('overrides metadata and redirects endpoints on request, for refusal tests', async () => {
    const metadata = async (path: string) =>
      (await (await fetch(`${world.issuer}${path}`)).json()) as Record<string, unknown>;
    world.authServer.setMetadataOverride({
      token_endpoint: 'http://127.0.0.2:1/token',
      registration_endpoint: undefined,
    });
    try {
      for (const path of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
      ]) {
        const doc = await metadata(path);
        expect(doc['token_endpoint']).toBe('http://127.0.0.2:1/token');
        expect(doc).not.toHaveProperty('registration_endpoint');
        expect(doc['issuer']).toBe(world.issuer);
      }
    } finally {
      world.authServer.setMetadataOverride(undefined);
    }
    expect((await metadata('/.well-known/oauth-authorization-server'))['token_endpoint']).toBe(
      `${world.issuer}/token`,
    );

    world.authServer.setRedirect('/token', 'http://127.0.0.2:1/token');
    try {
      const response = await fetch(`${world.issuer}/token`, { method: 'POST', redirect: 'manual' });
      expect(response.status).toBe(307);
      expect(response.headers.get('location')).toBe('http://127.0.0.2:1/token');
    } finally {
      world.authServer.setRedirect('/token', undefined);
    }
    expect((await fetch(`${world.issuer}/token`, { method: 'POST' })).status).toBe(400);

    world.mcpServer.setResourceMetadataOverride({ authorization_servers: ['http://127.0.0.2:1'] });
    try {
      const prm = (await (await fetch(world.resourceMetadataUrl)).json()) as Record<
        string,
        unknown
      >;
      expect(prm['authorization_servers']).toEqual(['http://127.0.0.2:1']);
    } finally {
      world.mcpServer.setResourceMetadataOverride(undefined);
    }
  });

  it('sends the user’s refusal back to the client as access_denied', async () => {
    const provider = new RecordingProvider();
    await auth(provider, { serverUrl: world.mcpUrl });
    const callback = new URL(await world.browse(String(provider.authorizationUrl), { deny: true }));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('iss')).toBe(world.issuer);
  });
});

describe('OAuth world: refresh token policies', () => {
  it.each([
    ['reuse', true],
    ['never', false],
  ] as const)('refreshTokens: %s', async (refreshTokens, issued) => {
    const world = await startOAuthWorld({ refreshTokens });
    try {
      const provider = new RecordingProvider();
      await signIn(world, provider);
      const first = provider.tokens()?.refresh_token;
      expect(Boolean(first)).toBe(issued);
      if (!first) return;
      const refreshed = await refreshWith(world, provider, first);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body['refresh_token']).toBe(first);
      expect((await refreshWith(world, provider, first)).status).toBe(200);
    } finally {
      await world.close();
    }
  });
});

describe('OAuth world: client credentials with pre-registered clients', () => {
  let world: OAuthWorld;
  let privateJwk: JWK;
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateJwk = await exportJWK(pair.privateKey);
    const publicJwk = await exportJWK(pair.publicKey);
    world = await startOAuthWorld({
      clients: [
        {
          client_id: 'machine-basic',
          client_secret: 'machine-basic-secret-that-is-long-enough',
          token_endpoint_auth_method: 'client_secret_basic',
          grant_types: ['client_credentials'],
        },
        {
          client_id: 'machine-post',
          client_secret: 'machine-post-secret-that-is-long-enough',
          token_endpoint_auth_method: 'client_secret_post',
          grant_types: ['client_credentials'],
        },
        {
          client_id: 'machine-jwt',
          token_endpoint_auth_method: 'private_key_jwt',
          token_endpoint_auth_signing_alg: 'ES256',
          grant_types: ['client_credentials'],
          jwks: { keys: [{ ...publicJwk, alg: 'ES256', use: 'sig' }] },
        },
      ],
    });
  });
  afterAll(() => world.close());

  it('client_secret_basic: ClientCredentialsProvider gets a token the MCP server accepts', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: 'machine-basic',
      clientSecret: 'machine-basic-secret-that-is-long-enough',
      expectedIssuer: world.issuer,
    });
    const client = await connect(world, provider);
    try {
      expect(await whoami(client)).toEqual({
        sub: 'machine-basic',
        client_id: 'machine-basic',
        scopes: ['mcp:read', 'mcp:write'],
      });
    } finally {
      await client.close();
    }
    expect(world.counters().tokenRequests['client_credentials']).toBe(1);
    expect(world.counters().registrations).toBe(0);
  });

  it('private_key_jwt: PrivateKeyJwtProvider gets a token the MCP server accepts', async () => {
    const provider = new PrivateKeyJwtProvider({
      clientId: 'machine-jwt',
      privateKey: privateJwk as Record<string, unknown>,
      algorithm: 'ES256',
      expectedIssuer: world.issuer,
    });
    const client = await connect(world, provider);
    try {
      expect(await whoami(client)).toMatchObject({ sub: 'machine-jwt', client_id: 'machine-jwt' });
    } finally {
      await client.close();
    }
  });

  it('client_secret_post: credentials in the form body get a token for the resource', async () => {
    const response = await fetch(`${world.issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'machine-post',
        client_secret: 'machine-post-secret-that-is-long-enough',
        scope: 'mcp:read',
        resource: world.mcpUrl,
      }),
    });
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    expect(decodeJwt(token)).toMatchObject({ aud: world.mcpUrl, scope: 'mcp:read' });
    expect((await rawToolCall(world, token)).status).toBe(200);
  });

  it('refuses a wrong client secret at the token endpoint', async () => {
    const before = world.counters();
    const provider = new ClientCredentialsProvider({
      clientId: 'machine-basic',
      clientSecret: 'not-the-secret',
      expectedIssuer: world.issuer,
    });
    await expect(connect(world, provider)).rejects.toThrow();
    const after = world.counters();
    expect(after.tokenErrors['client_credentials']).toBeGreaterThan(
      before.tokenErrors['client_credentials'] ?? 0,
    );
  });
});

describe('OAuth world: the MCP server refuses tokens it must not accept', () => {
  const MACHINE_SECRET = 'machine-secret-that-is-long-enough';
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({
      toolScopes: { write: ['mcp:write'] },
      clients: [
        {
          client_id: 'machine',
          client_secret: MACHINE_SECRET,
          grant_types: ['client_credentials'],
        },
      ],
    });
  });
  afterAll(() => world.close());

  it('accepts a token minted exactly as the issuer would (the control for the refusals)', async () => {
    const { status, body } = await rawToolCall(world, await world.mintAccessToken());
    expect(status).toBe(200);
    expect(body).toContain('"text":"hi"');
  });

  it.each([
    ['a wrong audience', { aud: 'http://127.0.0.1:1/other' }, 'issuer', 'wrong_audience'],
    ['a wrong issuer', { iss: 'http://127.0.0.1:1' }, 'issuer', 'wrong_issuer'],
    ['a bad signature', {}, 'stranger', 'bad_signature'],
  ] as const)('refuses %s with 401 invalid_token', async (_label, claims, signer, reason) => {
    const before = world.counters().mcp;
    const token = await world.mintAccessToken(claims, { signer });
    const { status, challenge } = await rawToolCall(world, token);
    expect(status).toBe(401);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${world.resourceMetadataUrl}"`);
    const after = world.counters().mcp;
    expect(after.refusals[reason]).toBe((before.refusals[reason] ?? 0) + 1);
    expect(after.accepted).toBe(before.accepted);
  });

  it('refuses an issued token once advanceClock() takes it past its expiry', async () => {
    const provider = new ClientCredentialsProvider({
      clientId: 'machine',
      clientSecret: MACHINE_SECRET,
      expectedIssuer: world.issuer,
    });
    expect(await auth(provider, { serverUrl: world.mcpUrl })).toBe('AUTHORIZED');
    const token = provider.tokens()?.access_token ?? '';
    expect((await rawToolCall(world, token)).status).toBe(200);
    // `iat`/`exp` are whole seconds, so the token may carry up to a second less than 300 s of
    // life from the moment it was minted: stay well inside it, then go well past it.
    world.advanceClock(290);
    expect((await rawToolCall(world, token)).status).toBe(200);
    world.advanceClock(11);
    const before = world.counters().mcp;
    const { status, challenge } = await rawToolCall(world, token);
    expect(status).toBe(401);
    expect(challenge).toContain('error="invalid_token", error_description="token expired"');
    expect(world.counters().mcp.refusals.expired).toBe((before.refusals.expired ?? 0) + 1);
  });

  it('refuses a token the authorization server issued without a resource indicator', async () => {
    const response = await fetch(`${world.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${btoa(`machine:${MACHINE_SECRET}`)}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read' }),
    });
    expect(response.status).toBe(200);
    const { access_token: token } = (await response.json()) as { access_token: string };
    const before = world.counters().mcp;
    const { status, challenge } = await rawToolCall(world, token);
    expect(status).toBe(401);
    expect(challenge).toContain('error="invalid_token"');
    expect(world.counters().mcp.refusals.malformed_token).toBe(
      (before.refusals.malformed_token ?? 0) + 1,
    );
  });

  it('answers a call without the tool’s scope with 403 insufficient_scope', async () => {
    const readOnly = await world.mintAccessToken({ scope: 'mcp:read' });
    const before = world.counters().mcp.forbidden;
    const denied = await rawToolCall(world, readOnly, 'write');
    expect(denied.status).toBe(403);
    expect(denied.challenge).toContain('error="insufficient_scope"');
    expect(denied.challenge).toContain('scope="mcp:write"');
    expect(world.counters().mcp.forbidden).toBe(before + 1);
    // Same token, a tool without required scopes; and the write tool with the scope.
    expect((await rawToolCall(world, readOnly, 'echo')).status).toBe(200);
    expect((await rawToolCall(world, await world.mintAccessToken(), 'write')).status).toBe(200);
  });
});
