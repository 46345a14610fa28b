import { MusterError, abortedError } from '../../errors/index.js';
import { backoffDelay, resolveBackoff, sleepUnlessAborted } from '../../util/index.js';
import type { BackoffSettings } from '../../util/index.js';
import { findInCauseChain } from '../failures/cause-chain.js';
import { clientErrorOf } from '../failures/client-errors.js';
import { failureReasonOf } from '../failures/failure-reasons.js';
import type { McpRetryOptions } from '../contracts/operation-types.js';

/** Whether an operation may be retried at all: reads and lists may, tool calls only on request. */
export type OperationKind = 'read' | 'call';

/** Defaults of `retry` (its `initialDelayMs` is required): at most 10 s, 20 % jitter. */
export const MCP_BACKOFF: Omit<BackoffSettings, 'initialDelayMs'> = Object.freeze({
  maxDelayMs: 10_000,
  jitterRatio: 0.2,
});

/** JSON-RPC "internal error": the server failed on its side, a later try may work. */
const INTERNAL_ERROR = -32603;
/** Client error codes of a request that did not get through (or not in time). */
const TRANSIENT_SDK_CODES: ReadonlySet<string> = new Set([
  'REQUEST_TIMEOUT',
  'CONNECTION_CLOSED',
  'SEND_FAILED',
  'NOT_CONNECTED',
  'NOT_INITIALIZED',
]);
/** Muster codes that are final whatever caused them. */
const FINAL_CODES: ReadonlySet<string> = new Set([
  'ABORTED',
  'INVALID_CONFIGURATION',
  'MCP_AUTH_REQUIRED',
  'TOOL_DENIED',
  'TOOL_RESULT_TOO_LARGE',
]);

/**
 * Runs `attempt` again after a failure while `retry` allows it, with exponential backoff and
 * jitter, bounded by `maxDelayMs`. Only failures that a later try may fix are retried
 * ({@link retryableFailure}); a `call` without `retryNonIdempotent` only when it was not sent.
 * Never after the signal aborted: an abort during the backoff rejects with `ABORTED` (`what`
 * names the operation; a function is called only then). Retries are off without `retry`.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for refused retry options.
 */
export async function withRetry<T>(
  kind: OperationKind,
  retry: McpRetryOptions | undefined,
  signal: AbortSignal,
  what: string | (() => string),
  attempt: () => Promise<T>,
  random: () => number = Math.random,
): Promise<T> {
  const settings = retry && mcpBackoff(retry);
  const attempts = retry?.maxAttempts ?? 1;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!settings || n >= attempts || signal.aborted || !mayRetry(kind, retry, err)) throw err;
      if (!(await sleepUnlessAborted(backoffDelay(settings, n, random), signal)))
        throw abortedError(typeof what === 'function' ? what() : what, signal.reason);
    }
  }
}

function mcpBackoff(retry: McpRetryOptions): BackoffSettings {
  if (!(retry.initialDelayMs >= 0))
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `retry.initialDelayMs must be 0 or more (got ${String(retry.initialDelayMs)}): fix the option.`,
      { details: { option: 'retry.initialDelayMs' } },
    );
  return resolveBackoff('retry', retry, { initialDelayMs: retry.initialDelayMs, ...MCP_BACKOFF });
}

function mayRetry(kind: OperationKind, retry: McpRetryOptions | undefined, err: unknown): boolean {
  if (kind === 'call' && retry?.retryNonIdempotent !== true)
    return failureReasonOf(err)?.reason === 'not-sent' && retryableFailure(err);
  return retryableFailure(err);
}

/**
 * Whether a later try may succeed, on typed facts only: transport failures (the client's
 * timeout, closed connection, failed send, a socket error), Muster's `not-sent` and
 * `stream-lost`, a failed connect, a JSON-RPC internal error (-32603) and a call whose outcome
 * is unknown after a timeout or disconnect. Never a definite answer of the server (any other
 * JSON-RPC error: method not found, invalid params, resource not found), an unusable result,
 * a response over the byte limit, an authorization need, a refusal or an abort.
 */
export function retryableFailure(err: unknown): boolean {
  if (MusterError.isInstance(err)) {
    if (FINAL_CODES.has(err.code)) return false;
    if (err.code === 'MCP_CONNECTION_FAILED' || err.code === 'MCP_DISCONNECTED') return true;
    if (err.code === 'TOOL_OUTCOME_UNKNOWN')
      return err.details.reason === 'timeout' || err.details.reason === 'disconnected';
    const own = failureReasonOf(err)?.reason;
    if (own) return own !== 'response-too-large';
    if (err.details.protocolCode !== undefined) return err.details.protocolCode === INTERNAL_ERROR;
  }
  const fact = findInCauseChain(err, clientErrorOf);
  if (fact?.kind === 'protocol') return fact.code === INTERNAL_ERROR;
  if (fact?.kind === 'sdk')
    return (
      TRANSIENT_SDK_CODES.has(fact.code) ||
      (fact.status !== undefined && (fact.status >= 500 || fact.status === 429))
    );
  return findInCauseChain(err, (e) => socketError(e) || undefined) ?? false;
}

/** A Node socket-level failure (`ECONNRESET`, `ECONNREFUSED`, `EPIPE`, `ETIMEDOUT`, …). */
function socketError(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
