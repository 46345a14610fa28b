/**
 * The `muster-agent/sqlite` entry: a session store in one SQLite file, on `better-sqlite3`,
 * an optional peer dependency that only this entry imports. Any new export added here becomes
 * public API.
 */

export { SqliteSessionStore } from './sqlite-session-store.js';
export type { SqliteSessionStoreOptions } from './sqlite-session-store.js';
export { SQLITE_SCHEMA_VERSION } from './sqlite-schema.js';
