import { MusterError } from '../errors/index.js';

/**
 * Runs one read or write of the CLI's session store: a failure that is no Muster error (the
 * database is unreachable, the file unreadable) becomes `SESSION_STORE_FAILED` (exit 7), as
 * it does in a run. Muster errors (`WAIT_NOT_FOUND`, `SESSION_NOT_FOUND`…) pass as they are.
 */
export async function storeCall<T>(
  where: string,
  what: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (MusterError.isInstance(err)) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new MusterError(
      'SESSION_STORE_FAILED',
      `The session store (${where}) could not ${what}: ${reason}. Check that it is reachable (--store) and try again.`,
      { cause: err },
    );
  }
}
