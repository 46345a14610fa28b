import type { PoolClient } from 'pg';
import { MusterError } from '../errors/index.js';
import type { FleetJob, FleetQuery, FleetSession, FleetState, FleetView } from './session-fleet.js';
import type { SessionStatus } from './session-store.js';
import type { WaitKind } from './session-waits.js';
import type { Transact } from './postgres-archive.js';
import { quoteSchema } from './postgres-schema.js';

/** Sessions per state by default, and at most. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** A queue name as the workers take it. */
const QUEUE = /^[A-Za-z0-9_-]{1,50}$/;

/** A job's columns as read (pg-boss 10's `job` table). */
interface JobRow {
  readonly job_id: string | null;
  readonly job_state: string | null;
  readonly job_kind: string | null;
  readonly job_why: string | null;
  readonly job_created: Date | null;
  readonly job_after: Date | null;
}

/**
 * Where the sessions of a `PostgresSessionStore` stand (see `SessionFleetStore.fleet`), read
 * in one read-only repeatable-read transaction (one snapshot of the leases, the waits and
 * pg-boss's jobs). pg-boss's `job` table is read as the workers write it: one job per session
 * queued at a time, its `singleton_key` the session id, `data.kind` and `data.why` what it does
 * (docs/decisions.md, "The studio's tasks and fleet views").
 */
export async function readFleet(
  transact: Transact,
  s: string,
  query: FleetQuery = {},
): Promise<FleetView> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The fleet's limit must be a whole number from 1 to ${MAX_LIMIT}, not ${String(limit)}.`,
    );
  const jobs = query.jobs;
  if (jobs !== undefined && !QUEUE.test(jobs.queue))
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The fleet's queue '${jobs.queue}' is no queue name: 1-50 of letters, digits, '_' or '-' (the workers' queue option).`,
    );
  const jobTable = jobs === undefined ? undefined : `${quoteSchema(jobs.schema)}.job`;
  const wanted = (state: FleetState) => query.state === undefined || query.state === state;
  return transact(async (c) => {
    await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    const queueFound =
      jobTable !== undefined &&
      (await c.query<{ found: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS found`, [jobTable]))
        .rows[0]?.found === true;
    const from = { c, s, limit, queue: jobs?.queue ?? '', jobTable: queueFound ? jobTable : '' };
    // one after the other: one connection, one snapshot
    const parts = {
      running: wanted('running') ? await running(from) : [],
      queued: wanted('queued') && queueFound ? await queued(from) : [],
      parked: wanted('parked') ? await parked(from) : [],
    };
    const truncated = [parts.running, parts.queued, parts.parked].some((p) => p.length > limit);
    const sessions = [
      ...parts.running.slice(0, limit),
      ...parts.queued.slice(0, limit),
      ...parts.parked.slice(0, limit),
    ];
    return { sessions, queueFound, truncated };
  });
}

/** What each state's query reads from. */
interface FleetFrom {
  readonly c: PoolClient;
  /** The store's schema, quoted. */
  readonly s: string;
  readonly limit: number;
  readonly queue: string;
  /** pg-boss's job table, quoted; '' when it was not found. */
  readonly jobTable: string;
}

/** A live lease, of session `<id>`. */
const LIVE_LEASE = (s: string, id: string) =>
  `EXISTS (SELECT 1 FROM ${s}.muster_leases l WHERE l.session_id = ${id}
     AND l.owner IS NOT NULL AND l.expires_at > now())`;

/** A wait still pending and not expired, of session `<id>`. */
const PENDING_WAIT = (s: string, id: string) =>
  `EXISTS (SELECT 1 FROM ${s}.muster_waits w WHERE w.session_id = ${id} AND w.status = 'pending'
     AND (w.expires_at IS NULL OR w.expires_at::timestamptz > now()))`;

/** The columns of the job `j`; NULLs without the job table. */
function jobColumns(f: FleetFrom): string {
  if (f.jobTable === '')
    return `NULL::text AS job_id, NULL::text AS job_state, NULL::text AS job_kind,
      NULL::text AS job_why, NULL::timestamptz AS job_created, NULL::timestamptz AS job_after`;
  return `j.id::text AS job_id, j.state::text AS job_state, j.data->>'kind' AS job_kind,
      j.data->>'why' AS job_why, j.created_on AS job_created, j.start_after AS job_after`;
}

/**
 * `WITH f`: the first job of the queue waiting for each session (`created` or `retry`), as
 * `f.session_id` and `f.job_id`. Read once per query from the queue's jobs not yet taken
 * (`state < 'active'`, the predicate of pg-boss's `(name, start_after)` index), never from
 * the completed rows pg-boss keeps; only the columns that order them are sorted, the rest
 * is read by key for the rows listed (see {@link jobByKey}).
 */
function firstJobs(f: FleetFrom): string {
  return `WITH f AS MATERIALIZED (
      SELECT DISTINCT ON (jf.singleton_key) jf.singleton_key AS session_id, jf.id AS job_id
      FROM ${f.jobTable} jf
      WHERE jf.name = $2 AND jf.state < 'active' AND jf.singleton_key IS NOT NULL
      ORDER BY jf.singleton_key, jf.start_after, jf.created_on, jf.id)`;
}

/** `LEFT JOIN` of the job `<jobId>` of the queue as `j`, by pg-boss's key `(name, id)`. */
function jobByKey(f: FleetFrom, jobId: string): string {
  return `LEFT JOIN ${f.jobTable} j ON j.name = $2 AND j.id = ${jobId}`;
}

function jobOf(row: JobRow): FleetJob | undefined {
  if (row.job_id === null) return undefined;
  return {
    id: row.job_id,
    state: row.job_state ?? '',
    ...(row.job_kind !== null ? { kind: row.job_kind } : {}),
    ...(row.job_why !== null ? { why: row.job_why } : {}),
    createdAt: (row.job_created ?? new Date(0)).toISOString(),
    startAfter: (row.job_after ?? new Date(0)).toISOString(),
  };
}

/** The query's parameters: the limit (one more, to see a truncation) and the queue. */
function params(f: FleetFrom): unknown[] {
  return f.jobTable === '' ? [f.limit + 1] : [f.limit + 1, f.queue];
}

/**
 * Sessions a live lease holds, with the job a worker took for each: its `active` job, found
 * through pg-boss's unique index of a `singleton` queue's active jobs (the workers' queue has
 * that policy; a worker refuses any other), for the listed leases only.
 */
async function running(f: FleetFrom): Promise<FleetSession[]> {
  const activeJob =
    f.jobTable === ''
      ? ''
      : `LEFT JOIN LATERAL (SELECT * FROM ${f.jobTable} jj WHERE jj.name = $2
          AND jj.state = 'active' AND jj.policy = 'singleton'
          AND COALESCE(jj.singleton_key, '') = r.session_id LIMIT 1) j ON true`;
  const rows = await f.c.query<
    JobRow & {
      session_id: string;
      owner: string;
      expires_at: Date;
      status: SessionStatus | null;
      updated_at: string | null;
    }
  >(
    `SELECT r.session_id, r.owner, r.expires_at, x.status, x.updated_at,
       ${jobColumns(f)}
     FROM (SELECT l.session_id, l.owner, l.expires_at FROM ${f.s}.muster_leases l
       WHERE l.owner IS NOT NULL AND l.expires_at > now()
       ORDER BY l.session_id COLLATE "C" LIMIT $1) r
     LEFT JOIN ${f.s}.muster_sessions x ON x.id = r.session_id
     ${activeJob}
     ORDER BY r.session_id COLLATE "C"`,
    params(f),
  );
  return rows.rows.map((r) => {
    const job = jobOf(r);
    return {
      sessionId: r.session_id,
      state: 'running' as const,
      ...(r.status !== null ? { status: r.status } : {}),
      ...(r.updated_at !== null ? { updatedAt: r.updated_at } : {}),
      holder: r.owner,
      leaseExpiresAt: r.expires_at.toISOString(),
      ...(job ? { job } : {}),
    };
  });
}

/**
 * Sessions a job of the queue waits to run (due or delayed) that no live lease holds and
 * that are not parked on a pending wait (a parked session's delayed resume, at its waits'
 * expiry, leaves it parked). A start job's session may not exist yet; a session whose run
 * died (status `running`, its task wait still pending) and whose resume the sweep queued is
 * queued.
 */
async function queued(f: FleetFrom): Promise<FleetSession[]> {
  const rows = await f.c.query<
    JobRow & {
      session_id: string;
      input: string | null;
      status: SessionStatus | null;
      updated_at: string | null;
    }
  >(
    `${firstJobs(f)}
     SELECT q.session_id, x.status, x.updated_at,
       left(j.data->'request'->>'input', 200) AS input,
       ${jobColumns(f)}
     FROM (SELECT f.session_id, f.job_id FROM f
       WHERE NOT ${LIVE_LEASE(f.s, 'f.session_id')}
         AND NOT EXISTS (SELECT 1 FROM ${f.s}.muster_sessions p WHERE p.id = f.session_id
           AND p.status = 'parked' AND ${PENDING_WAIT(f.s, 'p.id')})
       ORDER BY f.session_id COLLATE "C" LIMIT $1) q
     ${jobByKey(f, 'q.job_id')}
     LEFT JOIN ${f.s}.muster_sessions x ON x.id = q.session_id
     ORDER BY q.session_id COLLATE "C"`,
    params(f),
  );
  return rows.rows.map((r) => {
    const job = jobOf(r);
    return {
      sessionId: r.session_id,
      state: 'queued' as const,
      ...(r.status !== null ? { status: r.status } : {}),
      ...(r.updated_at !== null ? { updatedAt: r.updated_at } : {}),
      ...(job ? { job } : {}),
      ...(r.input !== null ? { input: r.input } : {}),
    };
  });
}

/**
 * Parked sessions no live lease holds and no job is queued for while no wait holds them
 * (those are queued): each with the kinds of its pending waits and its resume due later.
 */
async function parked(f: FleetFrom): Promise<FleetSession[]> {
  const withJobs = f.jobTable !== '';
  const rows = await f.c.query<
    JobRow & { id: string; status: SessionStatus; updated_at: string; kinds: WaitKind[] }
  >(
    `${withJobs ? firstJobs(f) : ''}
     SELECT p.id, p.status, p.updated_at,
       ARRAY(SELECT w.kind FROM ${f.s}.muster_waits w WHERE w.session_id = p.id
         AND w.status = 'pending' AND (w.expires_at IS NULL OR w.expires_at::timestamptz > now())
         ORDER BY w.id) AS kinds,
       ${jobColumns(f)}
     FROM (SELECT x.id, x.status, x.updated_at${withJobs ? ', f.job_id' : ''}
       FROM ${f.s}.muster_sessions x ${withJobs ? 'LEFT JOIN f ON f.session_id = x.id' : ''}
       WHERE x.status = 'parked' AND NOT ${LIVE_LEASE(f.s, 'x.id')}
         ${withJobs ? `AND (f.job_id IS NULL OR ${PENDING_WAIT(f.s, 'x.id')})` : ''}
       ORDER BY x.id COLLATE "C" LIMIT $1) p
     ${withJobs ? jobByKey(f, 'p.job_id') : ''}
     ORDER BY p.id COLLATE "C"`,
    params(f),
  );
  return rows.rows.map((r) => {
    const job = jobOf(r);
    return {
      sessionId: r.id,
      state: 'parked' as const,
      status: r.status,
      updatedAt: r.updated_at,
      pendingWaits: r.kinds,
      ...(job ? { job } : {}),
    };
  });
}
