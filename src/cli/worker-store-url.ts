import { MusterError } from '../errors/index.js';

/** The environment variables `muster worker` reads its PostgreSQL store from, in order. */
export const WORKER_STORE_VARIABLES = ['MUSTER_STORE', 'DATABASE_URL'] as const;

const HOW =
  'Set MUSTER_STORE (or DATABASE_URL) to a postgres://user:password@host/db URL: muster worker takes its store from the environment only, never from the command line, where ps would show the password.';

/**
 * The `postgres://` URL of `muster worker`'s store, from `MUSTER_STORE`, else `DATABASE_URL`.
 * A missing, empty or invalid one is `INVALID_CONFIGURATION` naming the variable; the value
 * itself never appears in the message (it holds the password).
 */
export function workerStoreUrl(env: Readonly<Record<string, string | undefined>>): string {
  for (const name of WORKER_STORE_VARIABLES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url === undefined || !/^postgres(ql)?:$/.test(url.protocol) || url.hostname === '')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `${name} is not a postgres://user@host/db URL (its value is not shown: it may hold a password). ${HOW}`,
        { details: { variable: name } },
      );
    return value;
  }
  throw new MusterError('INVALID_CONFIGURATION', `muster worker has no session store. ${HOW}`, {
    details: { variable: 'MUSTER_STORE' },
  });
}
