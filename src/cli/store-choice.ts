import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DRIVER_FAILURE_REASONS, MusterError, isReasonIn } from '../errors/index.js';
import type { DriverFailureReason } from '../errors/index.js';
import { MemorySessionStore } from '../session/index.js';
import type { SessionStore } from '../session/index.js';
import type { CliContext } from './cli-context.js';

type SqliteModule = Awaited<ReturnType<typeof loadSqlite>>;
type PostgresModule = Awaited<ReturnType<typeof loadPostgres>>;
const loadSqlite = () => import('../session/sqlite.js');
const loadPostgres = () => import('../session/postgres.js');

/** The session store a command uses, and how to close it. */
export interface OpenedStore {
  readonly store: SessionStore;
  /** Where it lives, for messages: a file path, `postgres` or `memory`. */
  readonly where: string;
  close(): Promise<void>;
}

/** The SQLite file under `MUSTER_HOME` that holds the CLI's sessions by default. */
export function sessionsFile(home: string): string {
  return join(home, 'sessions.sqlite');
}

/**
 * Opens the sessions of `--store` (`postgres://…`), else the SQLite file under `MUSTER_HOME`
 * (the folder made private, `0700`, the file and its `-wal`/`-shm` files `0600`: sessions
 * hold the conversations). The drivers are optional peers loaded with a dynamic `import()`:
 * when the SQLite store reports its driver unusable (`details.reason` `driver-missing`,
 * `driver-not-built` or `driver-abi-mismatch`), a notice says why and how to install it, the
 * file made for it is removed, and an in-memory store is used (nothing is kept).
 */
export async function openStore(ctx: CliContext, url: string | undefined): Promise<OpenedStore> {
  if (url !== undefined) return openPostgres(url);
  const home = ctx.home();
  let store: InstanceType<SqliteModule['SqliteSessionStore']>;
  const path = sessionsFile(home);
  let made = false;
  try {
    const mod = await loadSqlite();
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // created private before SQLite opens it; SQLite gives its -wal/-shm files the same mode
    if (!existsSync(path)) {
      closeSync(openSync(path, 'a', 0o600));
      made = true;
    }
    store = new mod.SqliteSessionStore({ path });
  } catch (err) {
    const failure = driverFailureOf(err);
    if (failure === undefined) throw err;
    if (made) rmSync(path, { force: true });
    const why =
      failure.reason === 'driver-missing'
        ? 'better-sqlite3 is not installed'
        : `better-sqlite3 could not be loaded (${firstLine(failure.cause)})`;
    ctx
      .output()
      .notice(
        `notice: ${why}, so sessions are kept in memory and lost when this command ends. Install it to keep them: npm i better-sqlite3 (npm i -g better-sqlite3 for a global install; npm rebuild better-sqlite3 after changing Node.js)`,
      );
    return { store: new MemorySessionStore(), where: 'memory', close: async () => {} };
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, 0o600);
  }
  return { store, where: path, close: async () => store.close() };
}

async function openPostgres(url: string): Promise<OpenedStore> {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      '--store takes a postgres://user@host/db connection string; leave it out for the SQLite file under MUSTER_HOME.',
    );
  }
  let mod: PostgresModule;
  try {
    mod = await loadPostgres();
  } catch (err) {
    if (!isMissingModule(err)) throw err;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'A postgres:// store needs the pg driver: npm i pg',
      { cause: err, details: { reason: 'driver-missing', driver: 'pg' } },
    );
  }
  const store = new mod.PostgresSessionStore({ connectionString: url });
  return { store, where: 'postgres', close: async () => store.close() };
}

function isMissingModule(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/**
 * Why the SQLite store's driver cannot serve, from the typed `details.reason` of the store's
 * error (the store decided it on the driver's own typed facts), with the driver's error for
 * the notice; undefined for any other failure.
 */
function driverFailureOf(
  err: unknown,
): { readonly reason: DriverFailureReason; readonly cause: unknown } | undefined {
  if (!MusterError.isInstance(err) || err.code !== 'INVALID_CONFIGURATION') return undefined;
  const reason = err.details.reason;
  return isReasonIn(DRIVER_FAILURE_REASONS, reason) ? { reason, cause: err.cause } : undefined;
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim();
}
