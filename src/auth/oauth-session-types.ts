import type { FetchLike } from '@modelcontextprotocol/client';
import type { SecretRegistry } from '../util/index.js';
import type { CheckedOAuthOptions } from './oauth-config.js';
import type { TokenStore } from './token-store.js';

/** What an `OAuthSession` is made of. */
export interface OAuthSessionInput {
  readonly server: string;
  readonly checked: CheckedOAuthOptions;
  readonly store: TokenStore;
  /** The namespace of this user (or principal) and server in `store`. */
  readonly key: string;
  /** The principal this session signs in (SPEC 15.4); the local user when absent. */
  readonly principal?: string;
  /** The server's secret registry: every credential OAuth sees joins it. */
  readonly secrets: SecretRegistry;
  /** The bounded, redirect-refusing fetch for OAuth requests made outside the transport. */
  readonly fetch: FetchLike;
}

/** A challenge of the resource server: what it asked for. */
export interface OAuthChallenge {
  readonly scope?: string;
  readonly resourceMetadataUrl?: URL;
}
