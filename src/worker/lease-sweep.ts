import type { SessionJobData } from './session-jobs.js';
import type { WorkerBoss } from './worker-boss.js';
import type { DispatchableStore, SessionStore } from '../session/index.js';

/** Orphans read at once. */
const SWEEP_BATCH = 100;

/**
 * Pages of orphans one sweep looks at: sessions that stay orphans while their resume is queued
 * (or does nothing) come first every time and must not hide the others.
 */
const SWEEP_PAGES = 10;

/**
 * The lease sweep (SPEC 15.5): finds sessions whose run died (status `running`, no live
 * lease; or no session stored under an expired lease: a run that died before it stored its
 * session) or that wait for no decision any more (`parked`, every wait decided where no worker
 * was open, or expired), cancels the job a killed worker left `active` (it would hold the
 * session's other jobs back until it expires; `fail` would re-deliver it) and queues the
 * session's resume, unless one is already queued and due (a delayed job, such as the
 * `expires` resume of a parked run, does not count); the dead start job of a session never
 * stored is queued again as itself. Then, with `staleJobSeconds`, the jobs a worker killed
 * before its run took the lease left `active` (see {@link sweepStaleJobs}). Returns how many
 * jobs it queued.
 */
export async function sweepOrphans(
  boss: WorkerBoss,
  store: DispatchableStore & Pick<SessionStore, 'get'>,
  staleJobSeconds?: number,
): Promise<number> {
  let queued = 0;
  let after: string | undefined;
  for (let page = 0; page < SWEEP_PAGES; page++) {
    const orphans = await store.orphans(SWEEP_BATCH, after);
    for (const sessionId of orphans) queued += await sweepOne(boss, store, sessionId);
    if (orphans.length < SWEEP_BATCH) break;
    after = orphans.at(-1);
  }
  if (staleJobSeconds !== undefined) queued += await sweepStaleJobs(boss, store, staleJobSeconds);
  return queued;
}

/** An `active` session job as the sweep reads it. */
interface ActiveRow {
  readonly id: string;
  readonly sessionId: string | null;
  readonly data: SessionJobData | null;
  /** `started_on`, as PostgreSQL's text (the page's key). */
  readonly startedOn: string;
}

/**
 * Cancels the session jobs `active` for longer than `seconds` whose session no live lease
 * holds, and queues their work again: a worker killed between its fetch and its run's lease
 * leaves such a job, with no lease and often no session (an orphan neither), and on the
 * `singleton` queue it would hold the session's other jobs back for pg-boss's expiry (15
 * minutes). The grace covers a live worker between the two (milliseconds; the worker passes
 * twice the agent's `sessionLeaseMs`). What is queued: a start job's own data when its
 * session was never stored; the session's resume when it is `running` or `parked` (a task
 * poll, a decision); nothing when it ended (completed, idle, failed: the job's run had ended).
 * Nothing either when a job of the session is queued and due. Returns how many it queued.
 */
export async function sweepStaleJobs(
  boss: WorkerBoss,
  store: DispatchableStore & Pick<SessionStore, 'get'>,
  seconds: number,
): Promise<number> {
  let queued = 0;
  let after: ActiveRow | undefined;
  for (let page = 0; page < SWEEP_PAGES; page++) {
    const found = await boss.boss.getDb().executeSql(
      `SELECT id, singleton_key AS "sessionId", data, started_on::text AS "startedOn"
       FROM ${boss.quotedSchema}.job
       WHERE name = $1 AND state = 'active' AND started_on < now() - make_interval(secs => $2)
         AND ($3::timestamptz IS NULL OR (started_on, id) > ($3::timestamptz, $4::uuid))
       ORDER BY started_on, id LIMIT $5`,
      [boss.queue, seconds, after?.startedOn ?? null, after?.id ?? null, SWEEP_BATCH],
    );
    const rows = found.rows as ActiveRow[];
    const keyed = rows.filter((r): r is ActiveRow & { sessionId: string } => !!r.sessionId);
    const live = await store.leasedAmong(keyed.map((r) => r.sessionId));
    for (const row of keyed)
      if (!live.has(row.sessionId)) queued += await sweepStale(boss, store, row);
    if (rows.length < SWEEP_BATCH) break;
    after = rows.at(-1);
  }
  return queued;
}

/**
 * Queues one stale job's work again and then cancels it (see {@link sweepStaleJobs}); 1 if
 * queued. The new job comes first: the `singleton` queue takes it while the dead one is still
 * `active` (and holds it back until the cancel), so a sweeper that dies between the two, or a
 * send that fails, never leaves the work cancelled and not queued; the next sweep cancels.
 */
async function sweepStale(
  boss: WorkerBoss,
  store: Pick<SessionStore, 'get'>,
  row: ActiveRow & { sessionId: string },
): Promise<number> {
  const { sessionId } = row;
  const state = await store.get(sessionId);
  const data: SessionJobData | undefined =
    state === undefined
      ? row.data?.kind === 'start'
        ? row.data
        : undefined
      : state.status === 'running' || state.status === 'parked'
        ? { kind: 'resume', sessionId, why: 'orphaned' }
        : undefined;
  const queued =
    data !== undefined && !(await dueJobQueued(boss, sessionId))
      ? (await boss.boss.send(boss.queue, data, { singletonKey: sessionId })) !== null
      : false;
  await boss.boss.cancel(boss.queue, row.id);
  return queued ? 1 : 0;
}

/** True when a job of the session waits in the queue and is due (a delayed one is not). */
async function dueJobQueued(boss: WorkerBoss, sessionId: string): Promise<boolean> {
  const found = await boss.boss.getDb().executeSql(
    `SELECT 1 FROM ${boss.quotedSchema}.job WHERE name = $1 AND singleton_key = $2
       AND state < 'active' AND start_after <= now() LIMIT 1`,
    [boss.queue, sessionId],
  );
  return found.rows.length > 0;
}

/**
 * Queues the session's resume unless one is due (the dead start job itself when the session
 * was never stored: its request lives only there), then cancels its dead active job, in that
 * order (see {@link sweepStale}); 1 if queued.
 */
async function sweepOne(
  boss: WorkerBoss,
  store: Pick<SessionStore, 'get'>,
  sessionId: string,
): Promise<number> {
  const jobs = await boss.boss.getDb().executeSql(
    `SELECT id, state, data, start_after <= now() AS due FROM ${boss.quotedSchema}.job
         WHERE name = $1 AND singleton_key = $2 AND state < 'completed'`,
    [boss.queue, sessionId],
  );
  const rows = jobs.rows as { id: string; state: string; due: boolean; data: SessionJobData }[];
  const active = rows.filter((r) => r.state === 'active');
  // a job due later (a parked run's `expires` resume) does not count: the session is resumable now
  let queued = false;
  if (!rows.some((r) => r.state !== 'active' && r.due)) {
    const start = active.find((r) => r.data?.kind === 'start')?.data;
    const data: SessionJobData =
      start !== undefined && (await store.get(sessionId)) === undefined
        ? start
        : { kind: 'resume', sessionId, why: 'orphaned' };
    queued = (await boss.boss.send(boss.queue, data, { singletonKey: sessionId })) !== null;
  }
  if (active.length > 0)
    await boss.boss.cancel(
      boss.queue,
      active.map((r) => r.id),
    );
  return queued ? 1 : 0;
}
