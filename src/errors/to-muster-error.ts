import type { MusterErrorCode } from './error-codes.js';
import { MusterError } from './muster-error.js';
import { redact } from './redact-text.js';

/**
 * Returns `err` when it already is a Muster error; otherwise wraps it under `code`, keeping
 * a redacted copy of the original as `cause` and its message (credentials masked) after
 * `context`.
 */
export function toMusterError(err: unknown, code: MusterErrorCode, context: string): MusterError {
  if (MusterError.isInstance(err)) return err;
  const reason = redact(err instanceof Error ? err.message : String(err), undefined);
  return new MusterError(code, `${context}: ${reason}`, { cause: err });
}

/** The error for work stopped by an abort signal or by closing the agent. */
export function abortedError(what: string, reason?: unknown): MusterError {
  const why = reason instanceof Error ? `: ${redact(reason.message, undefined)}` : '';
  return new MusterError('ABORTED', `${what} was aborted${why}`, { cause: reason });
}

/**
 * The reason an agent's (or a child agent's) `close()` aborts its runs with: `ABORTED`,
 * `details.reason: 'agent-closed'`. Work that must not treat a close as a cancel (a call that
 * became an MCP task: SPEC 15.3, `close()` never cancels) tells it apart by
 * {@link isAgentClosed}, a typed fact, never the message.
 */
export function agentClosedError(what: string): MusterError {
  return new MusterError('ABORTED', `${what} was aborted: ${what.toLowerCase()} was closed`, {
    details: { reason: 'agent-closed' },
  });
}

/** True when `reason` (an abort signal's reason) is the close of an agent ({@link agentClosedError}). */
export function isAgentClosed(reason: unknown): boolean {
  return (
    MusterError.isInstance(reason) &&
    reason.code === 'ABORTED' &&
    reason.details.reason === 'agent-closed'
  );
}
