import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MusterError } from '../errors/index.js';
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
 * Opens the sessions of `--store` (`postgres://…`), else the SQLite file under `MUSTER_HOME`.
 * The drivers are optional peers loaded with a dynamic `import()`: without `better-sqlite3`,
 * a notice says how to install it and an in-memory store is used (nothing is kept).
 */
export async function openStore(ctx: CliContext, url: string | undefined): Promise<OpenedStore> {
  if (url !== undefined) return openPostgres(url);
  const home = ctx.home();
  let mod: SqliteModule;
  try {
    mod = await loadSqlite();
  } catch (err) {
    if (!isMissingModule(err)) throw err;
    ctx
      .output()
      .notice(
        'notice: better-sqlite3 is not installed, so sessions are kept in memory and lost when this command ends. Install it to keep them: npm i better-sqlite3',
      );
    return { store: new MemorySessionStore(), where: 'memory', close: async () => {} };
  }
  mkdirSync(home, { recursive: true });
  const path = sessionsFile(home);
  const store = new mod.SqliteSessionStore({ path });
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
      { cause: err },
    );
  }
  const store = new mod.PostgresSessionStore({ connectionString: url });
  return { store, where: 'postgres', close: async () => store.close() };
}

function isMissingModule(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}
