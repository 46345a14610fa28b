import { McpError, MusterError, OAUTH_FAILURE_REASONS, isReasonIn } from '../errors/index.js';
import type { OAuthFailureReason } from '../errors/index.js';
import type { SecretRegistry } from '../util/index.js';

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
      return isReasonIn(OAUTH_FAILURE_REASONS, reason) ? reason : 'login-required';
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
