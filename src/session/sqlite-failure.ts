import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MusterError, redact } from '../errors/index.js';
import type { SessionFailureReason } from '../errors/index.js';

/** What a failure of the SQLite store names: its file and how long a write waits for a lock. */
export interface SqliteFacts {
  /** The database file, as given. */
  readonly path: string;
  /** The store's busy timeout, in ms. */
  readonly busyTimeoutMs: number;
}

/** Runs one synchronous step of the SQLite store, its failures typed by {@link sqliteStoreError}. */
export type SqliteGuard = <T>(body: () => T) => T;

/** A {@link SqliteGuard} for the store of `facts`. */
export function sqliteGuard(facts: SqliteFacts): SqliteGuard {
  return <T>(body: () => T): T => {
    try {
      return body();
    } catch (err) {
      throw sqliteStoreError(err, facts);
    }
  };
}

/**
 * The typed form of a failure of the SQLite store: a Muster error (an unknown session, a lease
 * held elsewhere, a driver that cannot load) as it is, anything else `SESSION_STORE_FAILED`
 * whose `details.reason` comes from the driver's result code (`SQLITE_BUSY`, `SQLITE_NOTADB`…)
 * or from whether the file's folder exists, never from message text; the message says what to
 * do and the driver's error is the `cause`.
 */
export function sqliteStoreError(err: unknown, facts: SqliteFacts): unknown {
  if (MusterError.isInstance(err)) return err;
  const code = sqliteCode(err);
  const reason = reasonOf(code, facts.path);
  return new MusterError('SESSION_STORE_FAILED', messageOf(err, reason, code, facts), {
    cause: err,
    details: {
      ...(reason !== undefined ? { reason } : {}),
      store: 'sqlite',
      path: facts.path,
      ...(code !== undefined ? { storeCode: code } : {}),
    },
  });
}

/** The driver's result code (`SQLITE_BUSY`, or an extended one such as `SQLITE_BUSY_SNAPSHOT`). */
function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

function reasonOf(code: string | undefined, path: string): SessionFailureReason | undefined {
  // the driver refuses a missing folder itself, with no code: the file system says why
  if ((code === undefined || primary(code) === 'SQLITE_CANTOPEN') && folderMissing(path))
    return 'folder-missing';
  if (code === undefined) return undefined;
  switch (primary(code)) {
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_PERM':
    case 'SQLITE_READONLY':
    case 'SQLITE_AUTH':
      return 'not-permitted';
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return 'locked';
    case 'SQLITE_NOTADB':
    case 'SQLITE_CORRUPT':
      return 'corrupt';
    case 'SQLITE_FULL':
      return 'disk-full';
    default:
      return undefined;
  }
}

/** `SQLITE_BUSY_SNAPSHOT` → `SQLITE_BUSY`. */
function primary(code: string): string {
  return code.split('_', 2).join('_');
}

/** A database in memory or a temporary file has no folder to miss. */
function folderMissing(path: string): boolean {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return false;
  try {
    return !statSync(dirname(resolve(path))).isDirectory();
  } catch {
    return true;
  }
}

function messageOf(
  err: unknown,
  reason: SessionFailureReason | undefined,
  code: string | undefined,
  facts: SqliteFacts,
): string {
  const file = `'${facts.path}'`;
  const seen = code !== undefined ? ` (${code})` : '';
  switch (reason) {
    case 'folder-missing': {
      const folder = `'${dirname(resolve(facts.path))}'`;
      return `The session store's folder ${folder} does not exist: create it (mkdir -p ${folder}) or give the store another path.`;
    }
    case 'not-permitted':
      return `The session store cannot open or write its SQLite file ${file}${seen}: check that the path is a file, not a folder, and that this process may read and write it and its folder (SQLite keeps -wal and -shm files beside it).`;
    case 'locked':
      return `The session store's SQLite file ${file} is locked by another connection${seen}, still after waiting busyTimeoutMs (${facts.busyTimeoutMs} ms): close the other process that holds it (or end its transaction), or raise busyTimeoutMs.`;
    case 'corrupt':
      return `The session store's file ${file} is not a readable SQLite database${seen}: restore it from a backup, or move it aside to start with an empty store.`;
    case 'disk-full':
      return `The session store could not write its SQLite file ${file}${seen}: the disk is full; free space and try again.`;
    default:
      return `The session store's SQLite file ${file} failed${seen}: ${firstLine(err, [])}. Check the file (sqlite3 ${file} 'PRAGMA integrity_check') and try again.`;
  }
}

/** The first line of the driver's message, redacted: for a failure no code explains. */
function firstLine(err: unknown, secrets: readonly string[]): string {
  const message = err instanceof Error ? err.message : String(err);
  return redact(message.split('\n')[0]!.trim(), secrets).replace(/\.$/, '');
}
