import type { PoolClient } from 'pg';
import { MusterError } from '../errors/index.js';

/** Schema migrations of the PostgreSQL store, in order; `{s}` is the quoted schema name. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE {s}.muster_sessions (
     id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     iteration INTEGER NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     final_content TEXT,
     usage JSONB NOT NULL,
     error JSONB,
     archive_refs JSONB NOT NULL DEFAULT '[]',
     started_calls JSONB NOT NULL DEFAULT '[]',
     message_count INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX muster_sessions_status ON {s}.muster_sessions (status, id);
   CREATE TABLE {s}.muster_messages (
     session_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     body JSONB NOT NULL,
     lease_token BIGINT,
     lease_owner TEXT,
     written_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE {s}.muster_leases (
     session_id TEXT PRIMARY KEY,
     token BIGINT NOT NULL,
     owner TEXT,
     expires_at TIMESTAMPTZ NOT NULL
   );
   CREATE TABLE {s}.muster_archive (
     ref TEXT PRIMARY KEY,
     session_id TEXT NOT NULL,
     seq BIGSERIAL,
     kind TEXT NOT NULL,
     mime_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     text TEXT,
     data BYTEA,
     tool_name TEXT NOT NULL,
     call_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     evicted BOOLEAN NOT NULL DEFAULT false
   );
   CREATE INDEX muster_archive_session ON {s}.muster_archive (session_id, seq);`,
  // 2: the typed final answer of the latest completed run (SPEC 15.4)
  `ALTER TABLE {s}.muster_sessions ADD COLUMN final_output TEXT;`,
  // 3: the waits of parked runs (SPEC 15.1). The key orders the inbox across sessions; "C"
  // orders it by code point, as cursors compare, whatever the database's collation.
  `CREATE TABLE {s}.muster_waits (
     session_id TEXT COLLATE "C" NOT NULL,
     id TEXT COLLATE "C" NOT NULL,
     kind TEXT NOT NULL,
     status TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT,
     body TEXT NOT NULL,
     PRIMARY KEY (session_id, id)
   );
   CREATE INDEX muster_waits_status ON {s}.muster_waits (status, session_id, id);`,
  // 4: the event log and the steering queue (SPEC 15.2); bodies are JSON text, never queried
  `ALTER TABLE {s}.muster_sessions ADD COLUMN event_seq BIGINT NOT NULL DEFAULT 0;
   CREATE TABLE {s}.muster_events (
     session_id TEXT NOT NULL,
     seq BIGINT NOT NULL,
     type TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE {s}.muster_steering (
     id BIGSERIAL PRIMARY KEY,
     session_id TEXT NOT NULL,
     text TEXT NOT NULL,
     created_at TIMESTAMPTZ NOT NULL DEFAULT now()
   );
   CREATE INDEX muster_steering_session ON {s}.muster_steering (session_id, id);`,
  // 5: the principal a session acts for (SPEC 15.4); NULL (every older row) is the local user
  `ALTER TABLE {s}.muster_sessions ADD COLUMN principal TEXT;`,
  // 6: the budget of the latest run, as JSON text, never queried (SPEC 15.4); NULL when none
  `ALTER TABLE {s}.muster_sessions ADD COLUMN budget TEXT;`,
];

/** The schema version this code writes. */
export const POSTGRES_SCHEMA_VERSION = MIGRATIONS.length;

/** A schema name, quoted for SQL. Only plain lower-case names are accepted. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The schema name '${schema}' is not a plain lower-case SQL name: use letters, digits and underscores.`,
    );
  }
  return `"${schema}"`;
}

/**
 * Brings `schema` up to {@link POSTGRES_SCHEMA_VERSION} under a session advisory lock, so
 * replicas starting together apply each migration once.
 */
export async function migratePostgres(client: PoolClient, schema: string): Promise<void> {
  const s = quoteSchema(schema);
  await client.query('SELECT pg_advisory_lock(hashtext($1))', [`muster-agent:${schema}`]);
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.muster_schema_version (version INTEGER NOT NULL)`,
    );
    const found = await client.query<{ version: number }>(
      `SELECT version FROM ${s}.muster_schema_version`,
    );
    let version = found.rows[0]?.version ?? 0;
    if (found.rows.length === 0)
      await client.query(`INSERT INTO ${s}.muster_schema_version (version) VALUES (0)`);
    while (version < MIGRATIONS.length) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[version]!.replaceAll('{s}', s));
        await client.query(`UPDATE ${s}.muster_schema_version SET version = $1`, [version + 1]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      version++;
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`muster-agent:${schema}`]);
  }
}
