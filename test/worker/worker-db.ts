import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A fresh store schema and pg-boss schema for one test file, a call log, and their cleanup. */
export interface WorkerDb {
  readonly url: string;
  readonly schema: string;
  readonly bossSchema: string;
  readonly log: string;
  /** Runs one query on a connection of its own. */
  query<R extends object>(text: string, values?: unknown[]): Promise<R[]>;
  /** The lines of the call log. */
  calls(): string[];
  /** Environment of a worker process (test/fixtures/worker/worker-process.ts) on these schemas. */
  env(extra?: Record<string, string>): Record<string, string>;
  drop(): Promise<void>;
}

/** Makes the names (the schemas are created on first use: the store's and pg-boss's own). */
export function workerDb(url: string, name: string): WorkerDb {
  const id = randomBytes(4).toString('hex');
  const schema = `muster_${name}_${id}`;
  const bossSchema = `pgboss_${name}_${id}`;
  const dir = mkdtempSync(join(tmpdir(), `muster-${name}-`));
  const log = join(dir, 'calls.log');
  const query = async <R extends object>(text: string, values?: unknown[]) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query<R>(text, values)).rows;
    } finally {
      await c.end();
    }
  };
  return {
    url,
    schema,
    bossSchema,
    log,
    query,
    calls: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
        : [],
    env: (extra = {}) => ({
      WORKER_DB: url,
      WORKER_SCHEMA: schema,
      WORKER_BOSS_SCHEMA: bossSchema,
      WORKER_LOG: log,
      ...extra,
    }),
    drop: async () => {
      await query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await query(`DROP SCHEMA IF EXISTS "${bossSchema}" CASCADE`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
