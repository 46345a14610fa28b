import type { MusterErrorCode } from './error-codes.js';
import { MusterError } from './muster-error.js';

/**
 * Returns `err` when it already is a Muster error; otherwise wraps it under `code`, keeping
 * the original as `cause` and its message after `context`.
 */
export function toMusterError(err: unknown, code: MusterErrorCode, context: string): MusterError {
  if (MusterError.isInstance(err)) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new MusterError(code, `${context}: ${reason}`, { cause: err });
}

/** The error for work stopped by an abort signal or by closing the agent. */
export function abortedError(what: string, reason?: unknown): MusterError {
  const why = reason instanceof Error ? `: ${reason.message}` : '';
  return new MusterError('ABORTED', `${what} was aborted${why}`, { cause: reason });
}
