import type BetterSqlite3 from 'better-sqlite3';
import type { Database, Options } from 'better-sqlite3';
import { MusterError } from '../errors/index.js';
import type { DriverFailureReason } from '../errors/index.js';

// The optional peer is imported when this module is (as the static import it replaces was),
// but a failure is kept, not thrown: the store reports it as a typed fact when it is made.
const driver: { readonly Database: typeof BetterSqlite3 } | { readonly failure: unknown } =
  await import('better-sqlite3').then(
    // a CommonJS module: Node hands its module.exports (the constructor) as `default`, which
    // the typings (`export =`) do not describe for a dynamic import
    (mod: unknown) => ({ Database: (mod as { default: typeof BetterSqlite3 }).default }),
    (failure: unknown) => ({ failure }),
  );

/**
 * What keeps `better-sqlite3` from serving, from typed facts of its error only (never its
 * message text): a module that is not found (`ERR_MODULE_NOT_FOUND`, `MODULE_NOT_FOUND`),
 * the `bindings` lookup's `tries` (no native binary where the driver looks for it), Node's
 * `ERR_DLOPEN_FAILED` (a binary built for another Node.js, platform or architecture).
 */
function driverFailureOf(err: unknown): DriverFailureReason | undefined {
  const fact = err as { code?: unknown; tries?: unknown } | null | undefined;
  if (fact?.code === 'ERR_MODULE_NOT_FOUND' || fact?.code === 'MODULE_NOT_FOUND')
    return 'driver-missing';
  if (Array.isArray(fact?.tries)) return 'driver-not-built';
  if (fact?.code === 'ERR_DLOPEN_FAILED') return 'driver-abi-mismatch';
  return undefined;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim();
}

/** `INVALID_CONFIGURATION` for a driver that cannot serve, `reason` saying why (cause kept). */
function driverError(reason: DriverFailureReason, cause: unknown): MusterError {
  const what =
    reason === 'driver-missing'
      ? 'is not installed: npm i better-sqlite3'
      : reason === 'driver-not-built'
        ? `has no native binary (${firstLine(cause)}): npm rebuild better-sqlite3`
        : `could not be loaded (${firstLine(cause)}): its native binary was built for another Node.js (this is ${process.version}), platform or architecture; npm rebuild better-sqlite3`;
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  return new MusterError(
    'INVALID_CONFIGURATION',
    `The SQLite session store's driver, better-sqlite3, ${what}.`,
    {
      cause,
      details: {
        reason,
        driver: 'better-sqlite3',
        ...(typeof code === 'string' ? { driverCode: code } : {}),
      },
    },
  );
}

/**
 * Opens the SQLite database at `path` with `better-sqlite3`.
 *
 * @throws MusterError `INVALID_CONFIGURATION` with `details.reason` `driver-missing`,
 * `driver-not-built` or `driver-abi-mismatch` when the driver cannot serve (`details.driver`
 * names it, `details.driverCode` is its error's code; the error is the `cause`). Any other
 * failure (a file that is not a database, a folder that does not exist) is thrown as it is,
 * for the store to type (`sqlite-open.ts`).
 */
export function openSqliteDatabase(path: string, options: Options): Database {
  if ('failure' in driver) {
    const reason = driverFailureOf(driver.failure);
    throw reason === undefined ? driver.failure : driverError(reason, driver.failure);
  }
  try {
    return new driver.Database(path, options);
  } catch (err) {
    // the native addon is loaded with the first database: a broken one fails here
    const reason = driverFailureOf(err);
    throw reason === undefined ? err : driverError(reason, err);
  }
}
