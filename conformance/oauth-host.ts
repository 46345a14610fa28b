/**
 * How the conformance client, acting as a host, signs in to the suite's OAuth scenarios
 * through Muster's `mcp.oauth`. A real host would ask its user which authorization servers
 * to trust; this one reads the server's published metadata (RFC 9728) before connecting and
 * trusts the origins it names, all on loopback. Its "browser" follows the authorization
 * endpoint's redirect by reading its Location header, which is the callback URL.
 */
import { createPrivateKey } from 'node:crypto';
import { CrossAppAccessProvider, requestJwtAuthorizationGrant } from '@modelcontextprotocol/client';
import type { McpOAuthServerOptions } from '../src/index.js';

/** What the suite passes to the client in MCP_CONFORMANCE_CONTEXT. */
interface ScenarioContext {
  readonly client_id?: string;
  readonly client_secret?: string;
  readonly private_key_pem?: string;
  readonly signing_algorithm?: string;
  readonly idp_client_id?: string;
  readonly idp_id_token?: string;
  readonly idp_issuer?: string;
  readonly idp_token_endpoint?: string;
}

/** The authorization servers the MCP server names in its protected-resource metadata. */
async function trustedOrigins(serverUrl: string): Promise<string[]> {
  const url = new URL(serverUrl);
  const candidates: string[] = [];
  const probe = await fetch(serverUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
  }).catch(() => undefined);
  await probe?.body?.cancel();
  const challenge = probe?.headers.get('www-authenticate') ?? '';
  const named = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  if (named) candidates.push(named);
  candidates.push(
    new URL(`/.well-known/oauth-protected-resource${url.pathname}`, url).href,
    new URL('/.well-known/oauth-protected-resource', url).href,
  );
  for (const candidate of candidates) {
    const response = await fetch(candidate).catch(() => undefined);
    if (!response?.ok) {
      await response?.body?.cancel();
      continue;
    }
    const metadata = (await response.json()) as { authorization_servers?: string[] };
    return (metadata.authorization_servers ?? []).map((s) => new URL(s).origin);
  }
  return [];
}

/** The host's browser: the authorization endpoint answers with a redirect to the callback. */
async function browse(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location)
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return new URL(location, authorizationUrl).href;
}

/** The `mcp.oauth` entry this host uses for one scenario. */
export async function oauthFor(
  scenario: string,
  serverUrl: string,
): Promise<McpOAuthServerOptions> {
  const context = JSON.parse(process.env['MCP_CONFORMANCE_CONTEXT'] ?? '{}') as ScenarioContext;
  const allowedOrigins = await trustedOrigins(serverUrl);
  const base = { serverUrl, allowedOrigins, timeoutMs: 30_000 };
  if (scenario === 'auth/client-credentials-basic') {
    return {
      ...base,
      grant: 'client_credentials',
      clientId: context.client_id!,
      clientSecret: context.client_secret!,
    };
  }
  if (scenario === 'auth/client-credentials-jwt') {
    const jwk = createPrivateKey(context.private_key_pem!).export({ format: 'jwk' });
    return {
      ...base,
      grant: 'client_credentials',
      clientId: context.client_id!,
      privateKeyJwk: { ...jwk, kty: jwk.kty!, alg: context.signing_algorithm ?? 'ES256' },
    };
  }
  if (scenario === 'auth/cross-app-access-complete-flow') {
    const idp = new URL(context.idp_issuer!).origin;
    const provider = new CrossAppAccessProvider({
      clientId: context.client_id!,
      clientSecret: context.client_secret!,
      assertion: async (ctx) =>
        (
          await requestJwtAuthorizationGrant({
            tokenEndpoint: context.idp_token_endpoint!,
            audience: ctx.authorizationServerUrl,
            resource: ctx.resourceUrl,
            idToken: context.idp_id_token!,
            clientId: context.idp_client_id!,
            ...(ctx.scope ? { scope: ctx.scope } : {}),
            fetchFn: ctx.fetchFn,
          })
        ).jwtAuthGrant,
    });
    return { ...base, allowedOrigins: [...allowedOrigins, idp], provider };
  }
  return {
    ...base,
    redirectUri: 'http://localhost:3000/callback',
    authorize: (url) => browse(url),
    stepUp: true,
    clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
    ...(scenario === 'auth/pre-registration'
      ? { clientId: context.client_id!, clientSecret: context.client_secret! }
      : {}),
  };
}
