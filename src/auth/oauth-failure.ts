import type * as ClientExports from '@modelcontextprotocol/client';
import { MusterError } from '../errors/index.js';
import type { SecretRegistry } from '../util/index.js';
import { authError, sanitizeRemoteText } from './oauth-errors.js';

type ClientModule = typeof ClientExports;

/** The first Muster error along a cause chain (a guard refusal inside the client's error). */
function musterIn(err: unknown): MusterError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    if (MusterError.isInstance(e)) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What an OAuth step's failure becomes: Muster's own error when there is one (a refusal of
 * the guard wins, since discovery may have fallen back past it), an `issuer-mismatch` for the
 * client's issuer checks, else `token-request-failed` with the remote text sanitized. A
 * foreign error is never kept as `cause`: the client quotes response bodies in its messages,
 * and a misconfigured server may echo a request's code or verifier there.
 */
export function toAuthFailure(
  server: string,
  err: unknown,
  refusal: Error | undefined,
  secrets: SecretRegistry,
  client: ClientModule | undefined,
): MusterError {
  if (refusal && MusterError.isInstance(refusal)) return refusal;
  const own = musterIn(err);
  if (own) return own;
  if (
    client?.IssuerMismatchError.isInstance(err) ||
    client?.AuthorizationServerMismatchError.isInstance(err)
  ) {
    return authError(
      server,
      'issuer-mismatch',
      `Server '${server}': the authorization server's issuer does not match the one expected; the sign-in was refused.`,
    );
  }
  if (client?.OAuthError.isInstance(err)) {
    const text = sanitizeRemoteText(err.message, secrets);
    return authError(
      server,
      'token-request-failed',
      `Server '${server}': the authorization server refused a request (${sanitizeRemoteText(err.code, secrets)}${text ? `: ${text}` : ''}).`,
    );
  }
  const name = err instanceof Error ? err.name : 'Error';
  const text = sanitizeRemoteText((err as { message?: unknown } | null)?.message ?? '', secrets);
  return authError(
    server,
    'token-request-failed',
    `Server '${server}': OAuth failed (${name}${text ? `: ${text}` : ''}).`,
  );
}

/** `fetch` with a deadline per request, on top of the caller's own signal. */
export function withDeadline(
  fetch: ClientExports.FetchLike,
  timeoutMs: number,
): ClientExports.FetchLike {
  return (url, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetch(url, { ...init, signal });
  };
}

/** `promise`, or `onTimeout()`'s error after `timeoutMs`. */
export function withinDeadline<T>(
  promise: Promise<T>,
  timeoutMs: number,
  onTimeout: () => Error,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), timeoutMs);
    timer.unref?.();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
