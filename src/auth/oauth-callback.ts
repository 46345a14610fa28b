import { timingSafeEqual } from 'node:crypto';
import type { SecretRegistry } from '../util/index.js';
import { authError, sanitizeRemoteText } from './oauth-errors.js';

/** What a callback is checked against: the login waiting for it. */
export interface CallbackExpectation {
  readonly server: string;
  /** The redirect URI the login asked for. */
  readonly redirectUri: URL;
  /** The login's single-use `state`. */
  readonly state: string;
  readonly secrets: SecretRegistry;
  /** Told once the state matched: from then on, a refusal spends the login. */
  readonly onStateMatched?: () => void;
}

/** A callback that passed its checks: the code and the issuer it claims. */
export interface CheckedCallback {
  readonly code: string;
  /** The `iss` parameter (RFC 9207), checked against the metadata by the official client. */
  readonly iss?: string;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks the callback URL of an authorization-code login before its code is redeemed:
 * - it parses, and goes to the redirect URI (same origin and path);
 * - no parameter appears twice (a duplicated `code`, `state` or `iss` is an injection);
 * - `state` equals the login's (constant-time);
 * - an `error` answer is reported with its sanitized text;
 * - it carries a `code`.
 * The `iss` value is returned for the official client's RFC 9207 check.
 *
 * @throws McpError `MCP_AUTH_REQUIRED` with `details.reason` saying which check failed; the
 *   message never holds the URL, the code or the state.
 */
export function checkCallback(
  callbackUrl: string | URL,
  expected: CallbackExpectation,
): CheckedCallback {
  const { server } = expected;
  let url: URL;
  try {
    url = new URL(String(callbackUrl));
  } catch {
    throw authError(
      server,
      'invalid-callback',
      `Server '${server}': the OAuth callback is not a URL: pass the full URL the browser was sent to.`,
    );
  }
  expected.secrets.add(url.href, url.search);
  if (
    url.origin !== expected.redirectUri.origin ||
    url.pathname !== expected.redirectUri.pathname
  ) {
    throw authError(
      server,
      'wrong-destination',
      `Server '${server}': the OAuth callback does not go to the redirect URI of this login; it was refused.`,
    );
  }
  const seen = new Set<string>();
  for (const key of url.searchParams.keys()) {
    if (seen.has(key)) {
      throw authError(
        server,
        'duplicate-parameter',
        `Server '${server}': the OAuth callback repeats the parameter '${sanitizeRemoteText(key, expected.secrets).slice(0, 40)}'; it was refused.`,
      );
    }
    seen.add(key);
  }
  const params = url.searchParams;
  const state = params.get('state');
  if (state === null || !sameText(state, expected.state)) {
    throw authError(
      server,
      'state-mismatch',
      `Server '${server}': the OAuth callback's state does not match this login; it was refused (start the sign-in again if it was yours).`,
    );
  }
  expected.onStateMatched?.();
  const error = params.get('error');
  if (error !== null) {
    const code = sanitizeRemoteText(error, expected.secrets).slice(0, 60);
    const description = sanitizeRemoteText(params.get('error_description'), expected.secrets);
    throw authError(
      server,
      'authorization-denied',
      `Server '${server}': the authorization server refused the sign-in (${code}${description ? `: ${description}` : ''}).`,
    );
  }
  const code = params.get('code');
  if (code === null || code === '') {
    throw authError(
      server,
      'invalid-callback',
      `Server '${server}': the OAuth callback carries no authorization code.`,
    );
  }
  expected.secrets.add(code);
  const iss = params.get('iss');
  return iss === null ? { code } : { code, iss };
}
