/**
 * The `muster-agent/sqlite` entry: a session store in one SQLite file, on `better-sqlite3`,
 * an optional peer dependency that only this entry imports. A driver that is missing or
 * cannot load does not fail the import: `new SqliteSessionStore()` reports it as a typed fact
 * (`INVALID_CONFIGURATION`, `details.reason` `driver-missing`, `driver-not-built` or
 * `driver-abi-mismatch`). Any new export added here becomes public API.
 *
 * @module muster-agent/sqlite
 */

export { SqliteSessionStore } from './sqlite-session-store.js';
export type { SqliteSessionStoreOptions } from './sqlite-session-store.js';
export { SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';
