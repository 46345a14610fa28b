import type { StoredOAuthState } from './token-store.js';

function originOf(url: unknown): string[] {
  return typeof url === 'string' && URL.canParse(url) ? [new URL(url).origin] : [];
}

/**
 * The origins a stored sign-in already contacted: its authorization server and token
 * endpoint. The login that stored them succeeded, so the user allowed them then (the MCP
 * server's own origin, or an allowed origin); a refresh goes there again.
 */
export function signedInOrigins(state: StoredOAuthState | undefined): string[] {
  const discovery = state?.discovery;
  const metadata = discovery?.authorizationServerMetadata as
    | { token_endpoint?: unknown }
    | undefined;
  return [
    ...new Set([
      ...originOf(discovery?.authorizationServerUrl),
      ...originOf(metadata?.token_endpoint),
    ]),
  ];
}
