import { McpError, MusterError } from '../errors/index.js';
import type { SecretRegistry } from '../util/index.js';

/**
 * Why an OAuth step failed, carried as `details.reason` of an `MCP_AUTH_REQUIRED` error:
 * - `login-required`: no valid token and no silent way to get one (sign in);
 * - `insufficient-scope`: the server wants more scopes (`403 insufficient_scope`);
 * - `state-mismatch`, `issuer-mismatch`, `duplicate-parameter`, `wrong-destination`,
 *   `invalid-callback`: a callback URL that Muster refused;
 * - `no-login`: a callback with no login waiting for it (finished, cancelled or timed out);
 * - `authorization-denied`: the authorization server answered with an error;
 * - `origin-not-allowed`, `insecure-url`, `redirect-refused`: a request OAuth refused to make;
 * - `login-timeout`, `login-cancelled`: the login ended before its callback;
 * - `token-request-failed`: discovery, registration or the token endpoint failed.
 */
export type OAuthFailureReason =
  | 'login-required'
  | 'insufficient-scope'
  | 'state-mismatch'
  | 'issuer-mismatch'
  | 'duplicate-parameter'
  | 'wrong-destination'
  | 'invalid-callback'
  | 'no-login'
  | 'authorization-denied'
  | 'origin-not-allowed'
  | 'insecure-url'
  | 'redirect-refused'
  | 'login-timeout'
  | 'login-cancelled'
  | 'token-request-failed';

/** An `MCP_AUTH_REQUIRED` error for `server` with its reason. The message must hold no secret. */
export function authError(
  server: string,
  reason: OAuthFailureReason,
  message: string,
  cause?: unknown,
): McpError {
  return new McpError('MCP_AUTH_REQUIRED', message, {
    server,
    details: { server, reason },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The OAuth failure reason of an error Muster raised, if it is one. */
export function oauthReasonOf(err: unknown): OAuthFailureReason | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    if (MusterError.isInstance(e) && e.code === 'MCP_AUTH_REQUIRED') {
      const reason = e.details.reason;
      return typeof reason === 'string' ? (reason as OAuthFailureReason) : 'login-required';
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Text from an authorization server (an `error` code, an `error_description`), made safe to
 * show: control characters removed, secrets masked, at most 200 characters. Attacker-chosen
 * text must never carry a link or a secret into an error message.
 */
export function sanitizeRemoteText(text: unknown, secrets: SecretRegistry): string {
  if (typeof text !== 'string') return '';
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  const noLinks = plain.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[link removed]');
  const masked = secrets.redact(noLinks);
  return masked.length > 200 ? `${masked.slice(0, 199)}…` : masked;
}
