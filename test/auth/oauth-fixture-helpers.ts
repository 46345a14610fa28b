// The official MCP client's side of the OAuth fixture tests: a minimal interactive
// OAuthClientProvider and a few raw HTTP calls whose status and headers the tests read.
import { expect } from 'vitest';
import { auth, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type {
  CallToolResult,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { BrowseOptions, OAuthWorld } from '../fixtures/oauth/index.js';

/** Nothing listens here: `browse()` reports the callback without requesting it. */
export const REDIRECT_URL = 'http://127.0.0.1:9/callback';

/**
 * The smallest complete interactive provider: keeps everything in memory and records the
 * authorization URL instead of opening a browser.
 */
export class RecordingProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  readonly states: string[] = [];
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;

  get redirectUrl(): string {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'oauth-fixture-test',
      redirect_uris: [REDIRECT_URL],
      // Listing refresh_token is what makes auth() ask for offline_access.
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    const state = crypto.randomUUID();
    this.states.push(state);
    return state;
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }
}

export async function connect(
  world: OAuthWorld,
  authProvider: OAuthClientProvider,
): Promise<Client> {
  const client = new Client({ name: 'oauth-fixture-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(world.mcpUrl), { authProvider }));
  return client;
}

export async function whoami(client: Client): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name: 'whoami', arguments: {} })) as CallToolResult;
  return (result.structuredContent ?? {}) as Record<string, unknown>;
}

/** A raw `tools/call` to the MCP endpoint, so refusals can be read off the HTTP response. */
export async function rawToolCall(world: OAuthWorld, token: string | undefined, name = 'echo') {
  const response = await fetch(world.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: { text: 'hi' } },
    }),
  });
  const body = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body };
}

/** A raw refresh_token grant for `provider`'s public client, with the resource indicator. */
export async function refreshWith(
  world: OAuthWorld,
  provider: RecordingProvider,
  refreshToken: string,
) {
  const response = await fetch(`${world.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: provider.clientInformation()?.client_id ?? '',
      resource: world.mcpUrl,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Runs auth() to the redirect, browses, and finishes auth() with the callback. */
export async function signIn(
  world: OAuthWorld,
  provider: RecordingProvider,
  options?: BrowseOptions,
): Promise<URL> {
  expect(await auth(provider, { serverUrl: world.mcpUrl })).toBe('REDIRECT');
  const callback = new URL(await world.browse(String(provider.authorizationUrl), options));
  const code = callback.searchParams.get('code');
  expect(code).toBeTruthy();
  const iss = callback.searchParams.get('iss') ?? undefined;
  expect(
    await auth(provider, { serverUrl: world.mcpUrl, authorizationCode: code ?? '', iss }),
  ).toBe('AUTHORIZED');
  return callback;
}
