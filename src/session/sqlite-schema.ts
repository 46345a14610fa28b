import type { Database } from 'better-sqlite3';

/** Schema migrations of the SQLite store, in order; `PRAGMA user_version` counts those applied. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE muster_sessions (
     id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     iteration INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     final_content TEXT,
     usage TEXT NOT NULL,
     error TEXT,
     archive_refs TEXT NOT NULL DEFAULT '[]',
     started_calls TEXT NOT NULL DEFAULT '[]',
     message_count INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX muster_sessions_status ON muster_sessions (status, id);
   CREATE TABLE muster_messages (
     session_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     body TEXT NOT NULL,
     lease_token INTEGER,
     lease_owner TEXT,
     written_at INTEGER NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE muster_leases (
     session_id TEXT PRIMARY KEY,
     token INTEGER NOT NULL,
     owner TEXT,
     expires_at INTEGER NOT NULL
   );
   CREATE TABLE muster_archive (
     ref TEXT PRIMARY KEY,
     session_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     kind TEXT NOT NULL,
     mime_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     text TEXT,
     data BLOB,
     tool_name TEXT NOT NULL,
     call_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     evicted INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX muster_archive_session ON muster_archive (session_id, seq);`,
  // 2: the typed final answer of the latest completed run (SPEC 15.4)
  `ALTER TABLE muster_sessions ADD COLUMN final_output TEXT;`,
  // 3: the waits of parked runs (SPEC 15.1); the key orders the inbox across sessions
  `CREATE TABLE muster_waits (
     session_id TEXT NOT NULL,
     id TEXT NOT NULL,
     kind TEXT NOT NULL,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     body TEXT NOT NULL,
     PRIMARY KEY (session_id, id)
   );
   CREATE INDEX muster_waits_status ON muster_waits (status, session_id, id);`,
  // 4: the event log and the steering queue (SPEC 15.2)
  `ALTER TABLE muster_sessions ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0;
   CREATE TABLE muster_events (
     session_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     type TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (session_id, seq)
   ) WITHOUT ROWID;
   CREATE TABLE muster_steering (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     session_id TEXT NOT NULL,
     text TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX muster_steering_session ON muster_steering (session_id, id);`,
  // 5: the principal a session acts for (SPEC 15.4); NULL (every older row) is the local user
  `ALTER TABLE muster_sessions ADD COLUMN principal TEXT;`,
  // 6: the budget of the latest run, as JSON text (SPEC 15.4); NULL when no run had one
  `ALTER TABLE muster_sessions ADD COLUMN budget TEXT;`,
];

/** The schema version this code writes. */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the file's schema up to {@link SQLITE_SCHEMA_VERSION}, each migration in its own
 * immediate transaction so two processes opening one new file apply it once.
 */
export function migrateSqlite(db: Database): void {
  for (;;) {
    const step = db.transaction(() => {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version >= MIGRATIONS.length) return false;
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
      return true;
    });
    if (!step.immediate()) return;
  }
}
