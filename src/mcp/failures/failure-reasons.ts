import { MCP_TRANSPORT_FAILURE_REASONS, MusterError, isReasonIn } from '../../errors/index.js';
import type { McpTransportFailureReason } from '../../errors/index.js';
import { findInCauseChain } from './cause-chain.js';
import { NOT_SENT_CODES, clientErrorOf, clientTimeoutOf } from './client-errors.js';
import { networkFactOf } from './network-facts.js';

/**
 * The transport failure reason ({@link MCP_TRANSPORT_FAILURE_REASONS}) in `err`'s cause
 * chain, with the error that carries it.
 */
export function failureReasonOf(
  err: unknown,
): { readonly reason: McpTransportFailureReason; readonly error: MusterError } | undefined {
  return findInCauseChain(err, (e) => {
    if (!MusterError.isInstance(e)) return undefined;
    const reason = e.details.reason;
    return isReasonIn(MCP_TRANSPORT_FAILURE_REASONS, reason) ? { reason, error: e } : undefined;
  });
}

/**
 * True when `err` proves that the request never reached the server, so sending it again
 * cannot run it twice. Decided on typed facts only, the first that speaks along the cause
 * chain:
 * - a Muster error with `details.reason` `not-sent` or `redirect` (true), or any other reason,
 *   or an outcome Muster already called unknown (`TOOL_OUTCOME_UNKNOWN`, `MCP_DISCONNECTED`)
 *   (false);
 * - a client error: one of the codes raised before anything reached the transport
 *   (`NOT_CONNECTED`, …) is true, any other is false;
 * - a network error whose code says the connection was never made (`ECONNREFUSED`,
 *   `ENOTFOUND`, `EAI_AGAIN`, a refused server certificate, a failure of `connect` itself).
 *
 * A reset or a closed socket after the connection existed is never "not sent", even when the
 * same errno could come before the request was written: when the facts cannot tell, the
 * answer is false.
 */
export function wasNotSent(err: unknown): boolean {
  const verdict = findInCauseChain(err, (e): boolean | undefined => {
    if (MusterError.isInstance(e)) {
      const reason = e.details.reason;
      if (reason === 'not-sent' || reason === 'redirect') return true;
      if (isReasonIn(MCP_TRANSPORT_FAILURE_REASONS, reason)) return false;
      if (e.code === 'TOOL_OUTCOME_UNKNOWN' || e.code === 'MCP_DISCONNECTED') return false;
      return undefined;
    }
    const fact = clientErrorOf(e);
    if (fact) return fact.kind === 'sdk' && NOT_SENT_CODES.has(fact.code);
    return undefined;
  });
  return verdict ?? networkFactOf(err)?.kind === 'not-sent';
}

/** The Muster option a timed-out request or connect ran into, and its value. */
export interface TimeoutFact {
  readonly limit: 'timeoutMs' | 'maxTotalTimeoutMs' | 'connectTimeoutMs';
  readonly limitMs: number;
}

/**
 * The limit that fired, when `err` is a timeout: Muster's own `timed-out` failure (its
 * `details.limit` and `details.limitMs`), or the client's `REQUEST_TIMEOUT` (its per-request
 * `timeout` is Muster's `timeoutMs`; its `maxTotalTimeout` is `maxTotalTimeoutMs`).
 */
export function timeoutOf(err: unknown): TimeoutFact | undefined {
  return findInCauseChain(err, (e): TimeoutFact | undefined => {
    if (MusterError.isInstance(e)) {
      const { reason, limit, limitMs } = e.details;
      return reason === 'timed-out' &&
        (limit === 'timeoutMs' || limit === 'maxTotalTimeoutMs' || limit === 'connectTimeoutMs') &&
        typeof limitMs === 'number'
        ? { limit, limitMs }
        : undefined;
    }
    const fact = clientTimeoutOf(e);
    if (!fact) return undefined;
    return {
      limit: fact.limit === 'timeout' ? 'timeoutMs' : 'maxTotalTimeoutMs',
      limitMs: fact.ms,
    };
  });
}
