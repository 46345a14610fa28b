import type * as ClientExports from '@modelcontextprotocol/client';
import type { AuthProvider, OAuthClientProvider } from '@modelcontextprotocol/client';
import { once } from '../util/index.js';
import type { SecretRegistry } from '../util/index.js';
import { randomBytes } from 'node:crypto';
import { authError } from './oauth-errors.js';
import { wrapHostProvider } from './oauth-provider.js';

/** The official client, loaded on the first 401 (one shared promise). */
const loadClientModule = once(
  (): Promise<typeof ClientExports> => import('@modelcontextprotocol/client'),
);

type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

function isOAuthProvider(p: AuthProvider | OAuthClientProvider): p is OAuthClientProvider {
  const r = p as unknown as Record<string, unknown>;
  return typeof r.tokens === 'function' && typeof r.clientInformation === 'function';
}

/**
 * Wraps a host's `auth: { type: 'provider' }` for the transport, with the rules of
 * `mcp.oauth` calls (SPEC 8): every token it returns joins the server's secrets; concurrent
 * 401s share one refresh; and a 401 never starts an interactive login. An `AuthProvider`'s
 * own `onUnauthorized` is that refresh; an `OAuthClientProvider` is refreshed with the
 * official `auth()`, and when that wants a browser the request fails with
 * `MCP_AUTH_REQUIRED` (`login-required`) instead of redirecting anyone.
 */
export function wrapAuthProvider(
  server: string,
  provider: AuthProvider | OAuthClientProvider,
  secrets: SecretRegistry,
): AuthProvider {
  let refreshing: Promise<void> | undefined;
  const shared = (run: () => Promise<void>): Promise<void> => {
    refreshing ??= run().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };
  if (!isOAuthProvider(provider)) {
    const refresh = provider.onUnauthorized?.bind(provider);
    return {
      token: async () => {
        const token = await provider.token();
        secrets.add(token);
        return token;
      },
      ...(refresh
        ? { onUnauthorized: (ctx: UnauthorizedContext) => shared(() => refresh(ctx)) }
        : {}),
    };
  }
  // the host's provider must not open a browser from inside a request
  const silent = wrapHostProvider(provider, {
    server,
    secrets,
    newState: () => randomBytes(32).toString('base64url'),
    saveVerifier: () => undefined,
    verifier: () => {
      throw authError(
        server,
        'no-login',
        `Server '${server}': no authorization code is being redeemed.`,
      );
    },
    onAuthorizationUrl: () => {
      throw authError(
        server,
        'login-required',
        `Server '${server}' needs a new sign-in: its auth provider has no token that a refresh could renew.`,
      );
    },
  });
  return {
    token: async () => {
      const tokens = await provider.tokens();
      secrets.add(tokens?.access_token, tokens?.refresh_token);
      return tokens?.access_token;
    },
    onUnauthorized: (ctx) =>
      shared(async () => {
        const client: typeof ClientExports = await loadClientModule();
        const { resourceMetadataUrl, scope } = client.extractWWWAuthenticateParams(ctx.response);
        const result = await client.auth(silent, {
          serverUrl: ctx.serverUrl,
          fetchFn: ctx.fetchFn,
          ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
          ...(scope ? { scope } : {}),
        });
        if (result !== 'AUTHORIZED') {
          throw authError(server, 'login-required', `Server '${server}' needs a new sign-in.`);
        }
      }),
  };
}
