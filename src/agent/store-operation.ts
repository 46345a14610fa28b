import { MusterError, SessionError, redact } from '../errors/index.js';
import type { MusterErrorDetails } from '../errors/index.js';

// One store operation of a run: the fence that may refuse it, and its failure typed.

/** Runs one store operation, or refuses it (a run whose lease is lost). */
export type Fence = <T>(operation: () => Promise<T>) => Promise<T>;

/**
 * Runs one store operation. A store that fails with a Muster error (an unknown session, a
 * lease held elsewhere) keeps its code, a store's own `SESSION_STORE_FAILED` (which says what
 * to do) gains the session; any other failure becomes `SESSION_STORE_FAILED`, with the store's
 * error kept as `cause`.
 */
export function guardStore<T>(
  sessionId: string,
  what: string,
  operation: () => Promise<T>,
): Promise<T> {
  // no async frame: this wraps every commit of every run
  const fail = (err: unknown): never => {
    throw typedStoreError(err, sessionId, what);
  };
  try {
    return operation().then(undefined, fail);
  } catch (err) {
    return Promise.reject(typedStoreError(err, sessionId, what));
  }
}

/** A store's failure typed as {@link guardStore} types it (for callers that catch it themselves). */
export function typedStoreError(err: unknown, sessionId: string, what: string): unknown {
  if (MusterError.isInstance(err)) {
    if (err.code !== 'SESSION_STORE_FAILED' || SessionError.isInstance(err)) return err;
    // the store's error names the file or server and what to do; the run adds the session
    return new SessionError(
      'SESSION_STORE_FAILED',
      `Could not ${what}: ${err.message} The session keeps what was committed before.`,
      { sessionId, cause: err, details: err.details as MusterErrorDetails<'SESSION_STORE_FAILED'> },
    );
  }
  // a host's store: its message is quoted redacted, its first line only
  const message = err instanceof Error ? err.message : String(err);
  const reason = redact(message.split('\n')[0]!.trim(), []);
  return new SessionError(
    'SESSION_STORE_FAILED',
    `The session store could not ${what}: ${reason}. Check that the store is reachable; the session keeps what was committed before.`,
    { sessionId, cause: err },
  );
}
