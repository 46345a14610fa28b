import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';

/** The replica process every multi-replica check and benchmark starts. */
export const REPLICA_FIXTURE = 'test/fixtures/session/replica.ts';

/** A schema of its own for one multi-replica run, with the tables the replicas count in. */
export interface ReplicaCluster {
  readonly schema: string;
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Seeds `count` sessions, each a run waiting for a replica (status running, no lease). */
  seed(count: number): Promise<string[]>;
  start(replicas: number, env?: Record<string, string>): ChildRun[];
  /** Lets the started replicas begin (each prints `READY` and waits for this). */
  go(): Promise<void>;
  drop(): Promise<void>;
}

/** Creates the schema and its counting tables on the server at `url`. */
export async function createCluster(url: string): Promise<ReplicaCluster> {
  const schema = `muster_replicas_${randomBytes(5).toString('hex')}`;
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const s = `"${schema}"`;
  const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    (await pool.query<T>(sql, params)).rows;
  const store = new PostgresSessionStore({ pool, schema });
  await store.list(); // creates the schema
  await query(
    `CREATE TABLE ${s}.test_executions (session_id TEXT, call_id TEXT, replica TEXT, run_id TEXT,
       at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())`,
  );
  await query(`CREATE TABLE ${s}.test_go (go INTEGER)`);
  await query(
    `CREATE TABLE ${s}.test_runs (run_id TEXT PRIMARY KEY, replica TEXT, session_id TEXT)`,
  );
  return {
    schema,
    query,
    async seed(count) {
      const ids = Array.from({ length: count }, (_, i) => `job-${String(i).padStart(5, '0')}`);
      const now = new Date().toISOString();
      for (const id of ids)
        await store.create({
          id,
          status: 'running',
          messages: [{ role: 'user', content: [{ type: 'text', text: `job ${id}` }] }],
          iteration: 0,
          createdAt: now,
          updatedAt: now,
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          archiveRefs: [],
          startedCalls: [],
        });
      return ids;
    },
    start(replicas, env = {}) {
      return Array.from({ length: replicas }, (_, i) =>
        startChild(REPLICA_FIXTURE, {
          REPLICA_ID: `r${i}`,
          REPLICA_DB: url,
          REPLICA_SCHEMA: schema,
          ...env,
        }),
      );
    },
    async go() {
      await query(`INSERT INTO ${s}.test_go VALUES (1)`);
    },
    async drop() {
      await query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
      await pool.end();
    },
  };
}
