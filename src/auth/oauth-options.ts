import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { TokenStore } from './token-store.js';

/**
 * Push mode: Muster hands the host the authorization URL to open (a browser, a device
 * prompt); the host resolves with the full callback URL the authorization server redirected
 * to. `signal` aborts when the login is cancelled or its deadline passes.
 */
export type OAuthAuthorizeFunction = (
  authorizationUrl: string,
  options: { readonly signal: AbortSignal },
) => Promise<string | URL>;

/** The ways a client secret can authenticate a token request (RFC 6749 section 2.3.1). */
export type OAuthSecretAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** A private key for `private_key_jwt` client authentication, as a JWK. */
export interface OAuthPrivateKeyJwk {
  readonly kty: string;
  /** The signing algorithm, for example `ES256` or `RS256`; read from the JWK when absent. */
  readonly alg?: string;
  readonly [member: string]: unknown;
}

/**
 * OAuth for one remote (`http`) server, `mcp.oauth[server]` (SPEC section 8). Muster runs
 * discovery, registration, PKCE, the token exchange and refresh through the official
 * client's `auth()`, and owns the rest: `state`, callback checks, trusted origins, deadlines,
 * token storage and redaction.
 */
export interface McpOAuthServerOptions {
  /** Must equal the server's `url` exactly: tokens are bound to this resource. */
  readonly serverUrl: string;
  /**
   * Origins besides the MCP server's own that OAuth may contact (authorization server,
   * registration, token endpoint), for example `['https://auth.example.com']`. Required;
   * may be empty when the authorization server shares the MCP server's origin.
   */
  readonly allowedOrigins: readonly string[];
  /**
   * A host-built official `OAuthClientProvider` (for example `CrossAppAccessProvider`): it
   * keeps its own tokens and client registration; Muster still owns `state`, the callback
   * checks, the origins and the deadline.
   */
  readonly provider?: OAuthClientProvider;
  /** Where tokens are kept: `'memory'` (default, per agent), `'file'`, `'keychain'` or a store. */
  readonly store?: 'memory' | 'file' | 'keychain' | TokenStore;
  /** Push mode when given; pull mode (`authenticate()` / `submitOAuthCallback()`) otherwise. */
  readonly authorize?: OAuthAuthorizeFunction;
  /** The redirect URI registered for this client; required for `authorization_code`. */
  readonly redirectUri?: string;
  /** A pre-registered client; without it Muster uses a metadata document or registers. */
  readonly clientId?: string;
  /** The pre-registered client's secret (`client_secret_basic` or `client_secret_post`). */
  readonly clientSecret?: string;
  /**
   * How `clientSecret` reaches the token endpoint: `client_secret_basic` (an HTTP Basic
   * `Authorization` header) or `client_secret_post` (`client_id` and `client_secret` in the
   * form body). Needs `clientSecret`. Default: the official client's choice, Basic where the
   * authorization server supports it. An authorization server whose metadata lists its
   * methods without the chosen one is refused before the secret is sent.
   */
  readonly tokenEndpointAuthMethod?: OAuthSecretAuthMethod;
  /** An HTTPS URL of a client ID metadata document, used where the server supports it. */
  readonly clientMetadataUrl?: string;
  /** Scopes to ask for; default: the server's challenge, then `scopes_supported`, else none. */
  readonly scope?: string;
  /** Default `authorization_code`; `client_credentials` for machine-to-machine access. */
  readonly grant?: 'authorization_code' | 'client_credentials';
  /** With `client_credentials`: authenticate with a signed JWT instead of a secret. */
  readonly privateKeyJwk?: OAuthPrivateKeyJwk;
  /** The issuer the credentials were registered with; others are refused. */
  readonly expectedIssuer?: string;
  /** Allow a new login with more scopes on `403 insufficient_scope` (at most 3 attempts). */
  readonly stepUp?: boolean;
  /** Login deadline in milliseconds, 1 to 600 000. Default 180 000. */
  readonly timeoutMs?: number;
  /**
   * Sign each principal in on its own (SPEC 15.4): a run acting for a principal calls this
   * server on a connection opened with that principal's tokens, and sees that connection's
   * tools; runs without one keep the shared connection of the local user. Not with a host
   * `provider` (it keeps its own tokens) or `client_credentials` (its token is the client's,
   * not a user's). Default false.
   */
  readonly perPrincipal?: boolean;
}

/** What `authenticate()` tells the host. */
export interface McpAuthenticateResult {
  /** The URL to open, when the user must act (pull mode). Never logged by Muster. */
  readonly authUrl?: string;
  /** True when the server waits for `submitOAuthCallback()`. */
  readonly requiresUserAction: boolean;
}

/** Defaults and bounds of OAuth. */
export const OAUTH_DEFAULTS = {
  timeoutMs: 180_000,
  maxTimeoutMs: 600_000,
  /** Attempts of one request when step-up is allowed (the first one included). */
  stepUpAttempts: 3,
  /** The longest one OAuth request (metadata, registration, token) may take. */
  requestTimeoutMs: 30_000,
  /** The longest a 401 waits for its shared refresh (below the 60 s call timeout). */
  refreshTimeoutMs: 45_000,
} as const;
