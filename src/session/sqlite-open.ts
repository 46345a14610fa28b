import type { Database } from 'better-sqlite3';
import { MusterError } from '../errors/index.js';
import { openSqliteDatabase } from './sqlite-driver.js';
import { sqliteStoreError } from './sqlite-failure.js';
import { migrateSqlite } from './sqlite-schema.js';

/**
 * How a SQLite store's commits reach the disk (`PRAGMA synchronous`, with WAL): `'normal'`
 * survives a crash of the process and never corrupts the file, but the last commits may be
 * lost if the machine loses power; `'full'` syncs the log on every commit, so a commit that
 * returned survives a power loss too, at the cost of one sync per commit.
 */
export type SqliteSynchronous = 'normal' | 'full';

/** How {@link openSqliteStore} opens the file. */
export interface SqliteOpenOptions {
  /** How long a statement waits for another connection's lock, in ms. */
  readonly busyTimeoutMs: number;
  /** How commits reach the disk. */
  readonly synchronous: SqliteSynchronous;
}

const PRAGMAS: Readonly<Record<SqliteSynchronous, string>> = {
  normal: 'synchronous = NORMAL',
  full: 'synchronous = FULL',
};

/**
 * Opens the store's file: WAL, the chosen durability, the schema migrated. A failure closes
 * what was opened and is typed by `sqliteStoreError`.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for an unknown `synchronous` or a driver that
 * cannot serve; `SESSION_STORE_FAILED` when the file cannot be opened (its folder missing, the
 * file locked, not a database…), `details.reason` saying why.
 */
export function openSqliteStore(path: string, options: SqliteOpenOptions): Database {
  const pragma = Object.hasOwn(PRAGMAS, options.synchronous)
    ? PRAGMAS[options.synchronous]
    : undefined;
  if (pragma === undefined)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The SQLite session store's synchronous option must be 'normal' or 'full', not ${JSON.stringify(options.synchronous)}.`,
    );
  let db: Database | undefined;
  try {
    db = openSqliteDatabase(path, { timeout: options.busyTimeoutMs });
    db.pragma('journal_mode = WAL');
    db.pragma(pragma);
    migrateSqlite(db);
    return db;
  } catch (err) {
    if (db?.open) db.close();
    throw sqliteStoreError(err, { path, busyTimeoutMs: options.busyTimeoutMs });
  }
}
