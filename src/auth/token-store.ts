import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { checkPrincipal } from './principal.js';

/**
 * The sign-in of a namespace that waits for its callback (pull mode), kept in the store so
 * that `submitOAuthCallback()` from any process using the same store can finish it: its
 * single-use `state`, its PKCE verifier and its deadline. Removed once a callback with its
 * `state` uses it, when a newer sign-in replaces it, at logout, and when found expired.
 * Secret: never logged, never in an event, a status or an error.
 */
export interface PendingOAuthLogin {
  /** The `state` the callback must carry. */
  readonly state: string;
  /** The PKCE code verifier the authorization code is redeemed with. */
  readonly verifier: string;
  /** After this (epoch ms) the login is refused (`login-timeout`) and removed. */
  readonly expiresAt: number;
}

/**
 * What Muster keeps about one OAuth namespace (one user, or one principal, and one server):
 * the tokens, the client registration (dynamic or pre-registered), the cached discovery, and
 * the sign-in waiting for its callback, if any. Never an authorization code or an
 * authorization URL.
 */
export interface StoredOAuthState {
  readonly tokens?: StoredOAuthTokens;
  readonly clientInformation?: StoredOAuthClientInformation;
  readonly discovery?: OAuthDiscoveryState;
  /** When `tokens` were saved (epoch ms), to tell their age without trusting the server. */
  readonly savedAt?: number;
  /** The pull-mode sign-in waiting for its callback (see {@link PendingOAuthLogin}). */
  readonly pendingLogin?: PendingOAuthLogin;
}

/**
 * Where OAuth state is kept between logins and processes. Keys are opaque namespace strings
 * made by Muster (see `oauthNamespace`); values are JSON-serializable. Implementations
 * must be safe for concurrent use by several agents of one process, and the file and keychain
 * stores also across processes. A store never logs or echoes what it keeps.
 */
export interface TokenStore {
  /** The state kept under `key`, or `undefined` when there is none. */
  get(key: string): Promise<StoredOAuthState | undefined>;
  /** Replaces the state kept under `key`. */
  set(key: string, value: StoredOAuthState): Promise<void>;
  /** Forgets `key`; forgetting a key that is not there is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Reads, changes and writes `key` as one step under the store's lock, so that two writers
   * (in one process or two) never lose each other's update. Returns what was written; when
   * `change` returns `undefined`, the key is deleted.
   */
  update(
    key: string,
    change: (current: StoredOAuthState | undefined) => StoredOAuthState | undefined,
  ): Promise<StoredOAuthState | undefined>;
  /**
   * Runs `work` while no other `exclusive` call for `key` runs: in this process and, for a
   * store shared across processes, in every process using it. Muster refreshes tokens inside
   * it, re-reading the store first, so that one holder at a time spends a refresh token (an
   * authorization server that rotates refresh tokens revokes the grant when one is used
   * twice). `work` reads and writes through the other methods, so this lock must not be the
   * one `update` takes. Optional: without it, a refresh is ordered within its session only.
   */
  exclusive?<T>(key: string, work: () => Promise<T>): Promise<T>;
}

/** What every key of a principal starts with; a key without a principal starts `muster:`. */
const PRINCIPAL_PREFIX = 'muster+p:';

/**
 * The namespace of one user and one server in a token store.
 *
 * - Without a principal (the local user): `muster:<user>:<server>:<serverUrl>`, the format
 *   Muster has always used, so tokens stored before principals existed keep serving it.
 * - With a principal (SPEC 15.4, the user a run acts for):
 *   `muster+p:<principal, percent-encoded>:<user>:<server>:<serverUrl>`. The prefix keeps every
 *   principal's keys apart from the local user's, and the encoding (`encodeURIComponent` of
 *   the well-formed id, which leaves no `:`) ends the principal at the first `:`, so no two
 *   principals share a key (`alice:w` is `alice%3Aw`).
 *
 * The user defaults to the operating-system account; the URL keeps two declarations of one
 * name that point elsewhere from sharing tokens.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a principal that is not 1 to 256 characters
 *   without control characters.
 */
export function oauthNamespace(
  server: string,
  serverUrl: string,
  user: string,
  principal?: string,
): string {
  const local = `${user}:${server}:${serverUrl}`;
  if (principal === undefined) return `muster:${local}`;
  return `${PRINCIPAL_PREFIX}${encodeURIComponent(checkPrincipal(principal))}:${local}`;
}
