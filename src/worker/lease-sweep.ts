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
 * stored is queued again as itself. Returns how many jobs it queued.
 */
export async function sweepOrphans(
  boss: WorkerBoss,
  store: DispatchableStore & Pick<SessionStore, 'get'>,
): Promise<number> {
  let queued = 0;
  let after: string | undefined;
  for (let page = 0; page < SWEEP_PAGES; page++) {
    const orphans = await store.orphans(SWEEP_BATCH, after);
    for (const sessionId of orphans) queued += await sweepOne(boss, store, sessionId);
    if (orphans.length < SWEEP_BATCH) break;
    after = orphans.at(-1);
  }
  return queued;
}

/**
 * Cancels the session's dead active job and queues its resume unless one is due (the dead
 * start job itself when the session was never stored: its request lives only there); 1 if
 * queued.
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
  if (active.length > 0)
    await boss.boss.cancel(
      boss.queue,
      active.map((r) => r.id),
    );
  // a job due later (a parked run's `expires` resume) does not count: the session is resumable now
  if (rows.some((r) => r.state !== 'active' && r.due)) return 0;
  const start = active.find((r) => r.data?.kind === 'start')?.data;
  const data: SessionJobData =
    start !== undefined && (await store.get(sessionId)) === undefined
      ? start
      : { kind: 'resume', sessionId, why: 'orphaned' };
  return (await boss.boss.send(boss.queue, data, { singletonKey: sessionId })) !== null ? 1 : 0;
}
