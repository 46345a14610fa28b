import { createRequire } from 'node:module';
import type PgBoss from 'pg-boss';
import { MusterError, redact, redactedCause } from '../errors/index.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/**
 * How long a session job may stay `active` before pg-boss fails it (its `expireInSeconds`):
 * the pg-boss default, 15 minutes. A run is not bound by it (the job of a run still going on
 * then is re-delivered, finds the lease held and completes as a no-op); it bounds how long a
 * killed worker's job holds its session back when no sweep cancels it first.
 */
export const SESSION_JOB_EXPIRE_SECONDS = 900;

/** The pg-boss side of a worker: the boss, its queues, and whether the worker owns it. */
export interface WorkerBoss {
  readonly boss: PgBoss;
  readonly owned: boolean;
  readonly queue: string;
  readonly sweepQueue: string;
  /** The pg-boss schema, quoted for SQL. */
  readonly quotedSchema: string;
}

/** The schema version of the installed pg-boss (24 for 10.3 and 10.4). */
export function installedBossSchemaVersion(): number {
  const require = createRequire(import.meta.url);
  let version: unknown;
  try {
    // pg-boss keeps its schema version beside its package.json
    version = (require('pg-boss/version.json') as { schema?: unknown }).schema;
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'muster-agent/worker needs pg-boss 10, an optional peer dependency: npm install pg-boss@10.',
      { cause: err },
    );
  }
  if (typeof version !== 'number')
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'The installed pg-boss names no schema version (version.json): install pg-boss 10 (npm install pg-boss@10).',
    );
  return version;
}

/**
 * Opens pg-boss for a worker: makes and starts its own (it installs or migrates the schema,
 * as pg-boss does) or takes the host's started one (never migrated: `migrate: false` is the
 * host's to set), checks the schema version, and creates the queues. Nothing is sent before
 * every check passed.
 */
export async function openWorkerBoss(options: ResolvedWorkerOptions): Promise<WorkerBoss> {
  const expected = installedBossSchemaVersion();
  let boss = options.boss;
  const owned = boss === undefined;
  if (boss === undefined) {
    const { default: PgBossClass } = await loadPgBoss();
    boss = new PgBossClass({
      connectionString: options.connectionString!,
      schema: options.schema,
      // cron schedules are not used: the sweep is a delayed job
      schedule: false,
    });
    // an idle connection that drops must not crash the host; failures reach the caller
    boss.on('error', () => undefined);
    try {
      await boss.start();
    } catch (err) {
      await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
      const secrets = connectionSecrets(options.connectionString!);
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `pg-boss could not start on schema '${options.schema}': ${redact(errorText(err), secrets)}. Check the connection string and that the schema holds pg-boss ${expected === 24 ? '10.3/10.4' : '10'} tables.`,
        { cause: redactedCause(err, secrets) },
      );
    }
  }
  const quotedSchema = `"${options.schema}"`;
  try {
    let found: unknown;
    try {
      found = await boss.schemaVersion();
    } catch (err) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `The pg-boss passed as \`boss\` could not report its schema version (${errorText(err)}): start it (await boss.start()) before createWorker's start().`,
        { cause: err },
      );
    }
    if (found !== expected)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `The pg-boss schema '${options.schema}' is at version ${String(found)}, but the installed pg-boss needs version ${expected}: migrate it with the pg-boss this worker runs (a boss you pass in is never migrated), or install the pg-boss that matches it.`,
        { details: { found: found === null ? null : Number(found), expected } },
      );
    const queue = options.queue;
    const sweepQueue = `${queue}-sweep`;
    // checked before any queue is created (a host's boss would create them in its own schema)
    const schemaFound = await boss
      .getDb()
      .executeSql(`SELECT to_regclass($1) IS NOT NULL AS found`, [`${quotedSchema}.queue`])
      .then((r) => (r.rows as { found: boolean }[])[0]?.found === true)
      .catch(() => false);
    if (!schemaFound) throw queuesNotFound(queue, sweepQueue, options.schema);
    // one active job per session (singletonKey = session id); see docs/decisions.md
    await ensureQueue(boss, {
      name: queue,
      policy: 'singleton',
      expireInSeconds: SESSION_JOB_EXPIRE_SECONDS,
    });
    // one queued and one active sweep at most (a second queued one is dropped)
    await ensureQueue(boss, {
      name: sweepQueue,
      policy: 'stately',
      expireInSeconds: options.sweepSeconds * 2,
      retryLimit: 0,
    });
    const policies = await boss
      .getDb()
      .executeSql(`SELECT name, policy FROM ${quotedSchema}.queue WHERE name = ANY($1::text[])`, [
        [queue, sweepQueue],
      ])
      .catch(() => ({ rows: [] as { name: string; policy: string }[] }));
    const policyOf = new Map(
      (policies.rows as { name: string; policy: string }[]).map((r) => [r.name, r.policy]),
    );
    if (policyOf.size !== 2) throw queuesNotFound(queue, sweepQueue, options.schema);
    if (policyOf.get(queue) !== 'singleton' || policyOf.get(sweepQueue) !== 'stately')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `The pg-boss queue '${queue}' exists with policy '${policyOf.get(queue)}' (its sweep queue: '${policyOf.get(sweepQueue)}'): a worker needs 'singleton' (one active job per session) and 'stately'. Name another queue, or delete this one.`,
      );
    return { boss, owned, queue, sweepQueue, quotedSchema };
  } catch (err) {
    if (owned) await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Creates a queue unless it exists. pg-boss 10's `create_queue` deadlocks when processes create
 * the same queue at once (a fleet starting together): a creation that fails is tried again
 * after a short pause, and counts once the queue is found.
 */
async function ensureQueue(boss: PgBoss, queue: PgBoss.Queue): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await boss.getQueue(queue.name)) return;
    try {
      await boss.createQueue(queue.name, queue);
      return;
    } catch (err) {
      if (attempt >= 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 50));
    }
  }
}

async function loadPgBoss(): Promise<{ default: typeof PgBoss }> {
  try {
    return (await import('pg-boss')) as unknown as { default: typeof PgBoss };
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'muster-agent/worker needs pg-boss 10, an optional peer dependency: npm install pg-boss@10.',
      { cause: err },
    );
  }
}

/** The password of a connection string (as written and decoded) and `PGPASSWORD`: masked in errors. */
function connectionSecrets(connectionString: string): string[] {
  const found: (string | undefined)[] = [process.env['PGPASSWORD']];
  try {
    const url = new URL(connectionString);
    found.push(url.password, url.searchParams.get('password') ?? undefined);
    try {
      found.push(decodeURIComponent(url.password));
    } catch {
      // not percent-encoded as written: the raw form is masked
    }
  } catch {
    found.push(/^[a-z]+:\/\/[^:@/]*:([^@]*)@/i.exec(connectionString)?.[1]);
  }
  return [...new Set(found.filter((s): s is string => typeof s === 'string' && s !== ''))];
}

function queuesNotFound(queue: string, sweepQueue: string, schema: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `The queues '${queue}' and '${sweepQueue}' are not in the pg-boss schema '${schema}': pass \`schema\` as the schema your boss was made with.`,
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
