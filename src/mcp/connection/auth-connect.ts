import { OAUTH_DEFAULTS, oauthReasonOf } from '../../auth/index.js';
import type { OAuthSession } from '../../auth/index.js';
import type { OAuthFailureReason } from '../../auth/index.js';
import { findInCauseChain } from '../failures/cause-chain.js';
import { clientErrorOf, insufficientScopeOf } from '../failures/client-errors.js';
import type { ServerEntry } from './server-entry.js';

/** Reasons a user's sign-in can fix: the server then shows `needs-auth`, not `failed`. */
const SIGN_IN_FIXES: ReadonlySet<OAuthFailureReason> = new Set<OAuthFailureReason>([
  'login-required',
  'insufficient-scope',
  'login-timeout',
  'login-cancelled',
  'no-login',
  'state-mismatch',
  'issuer-mismatch',
  'duplicate-parameter',
  'wrong-destination',
  'invalid-callback',
  'authorization-denied',
]);

/** True when `err` is an auth failure that a sign-in can fix (status `needs-auth`). */
export function needsSignIn(err: unknown): boolean {
  const reason = oauthReasonOf(err);
  return (
    (reason !== undefined && SIGN_IN_FIXES.has(reason)) || insufficientScopeOf(err) !== undefined
  );
}

/**
 * The status error of a server that was given no credentials at all (no `mcp.oauth` entry, no
 * `auth`, no `Authorization` header) and answered the connect with HTTP 401: it asks for a
 * sign-in, so it shows `needs-auth` with `MCP_AUTH_REQUIRED`, not `failed` (a host signs it in
 * by adding an `mcp.oauth` entry; `muster mcp auth <name>` does). Undefined for any other
 * failure, and for a server whose declared credentials were refused (that stays `failed`).
 */
export function signInAskedFor(
  e: ServerEntry,
  err: unknown,
): { readonly code: 'MCP_AUTH_REQUIRED'; readonly message: string } | undefined {
  if (e.oauth || hasCredentials(e)) return undefined;
  const fact = findInCauseChain(err, clientErrorOf);
  if (fact?.kind !== 'sdk' || fact.status !== 401) return undefined;
  return {
    code: 'MCP_AUTH_REQUIRED',
    message: `Server '${e.name}' requires authorization (HTTP 401) and has no sign-in: sign in to it (an mcp.oauth entry, then authenticate('${e.name}')), or give it a token.`,
  };
}

function hasCredentials(e: ServerEntry): boolean {
  const config = e.config;
  if (config.type !== 'http' && config.type !== 'sse') return false;
  if (config.type === 'http' && config.auth !== undefined) return true;
  return Object.keys(config.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

/**
 * Opens a connection to an OAuth server, signing in as needed: a first attempt with the
 * stored token (a 401 is refreshed silently by the transport); when that needs a login, one
 * login (push mode: the host's `authorize`, then a new attempt; pull mode: the login waits
 * for `submitOAuthCallback()` and this fails with `login-required`); a `403
 * insufficient_scope` answer leads to step-up when allowed, within
 * `OAUTH_DEFAULTS.stepUpAttempts` attempts in all. Servers without OAuth just open.
 *
 * @param signal cancels the attempt and a push-mode login.
 * @param lifetime bounds a pull-mode login, which outlives the run that started it.
 */
export async function openSignedIn<T>(
  e: ServerEntry,
  open: () => Promise<T>,
  signal: AbortSignal,
  lifetime: AbortSignal,
): Promise<T> {
  const session = e.oauth;
  if (!session) return open();
  let loggedIn = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (err) {
      if (signal.aborted) throw err;
      if (await steppedUp(session, err, attempt, signal)) continue;
      if (loggedIn || oauthReasonOf(err) !== 'login-required') throw err;
      // a pull-mode login the person may be finishing is never replaced by another
      if (!session.pushMode && session.waiting) throw err;
      loggedIn = true;
      // a push login ends with the run or the owner; a pull login outlives the run
      const bound = session.pushMode ? AbortSignal.any([signal, lifetime]) : lifetime;
      const result = await session.authenticate(bound);
      if (result.requiresUserAction) throw err;
    }
  }
}

/**
 * After a failed attempt of an OAuth server's request: when the server refused it for lack of
 * scope (`403 insufficient_scope`, so it did not run) and attempts remain, a step-up; true
 * when the request may be sent again.
 */
export async function steppedUp(
  session: OAuthSession,
  err: unknown,
  attempt: number,
  signal: AbortSignal,
): Promise<boolean> {
  const challenge = insufficientScopeOf(err);
  if (challenge === undefined || attempt >= OAUTH_DEFAULTS.stepUpAttempts) return false;
  await session.stepUp(challenge, signal);
  return true;
}
