import type { SessionJobData } from './session-jobs.js';
import type { WorkerBoss } from './worker-boss.js';
import type { DispatchableStore, SessionStore } from '../session/index.js';

/** Orphans looked at per sweep; the next sweep takes the rest. */
const SWEEP_BATCH = 100;

/**
 * The lease sweep (SPEC 15.5): finds sessions whose run died (status `running`, no live
 * lease; or no session stored under an expired lease) or that wait for no decision any more (`parked`, every wait decided where no worker
 * was open, or expired), cancels the job a killed worker left `active` (it would hold the session's other
 * jobs back until it expires; `fail` would re-deliver it) and queues the session's resume,
 * (or the dead start job again) unless one is already queued. Returns how many it queued.
 */
export async function sweepOrphans(
  boss: WorkerBoss,
  store: DispatchableStore & Pick<SessionStore, 'get'>,
): Promise<number> {
  const orphans = await store.orphans(SWEEP_BATCH);
  let queued = 0;
  for (const sessionId of orphans) {
    const jobs = await boss.boss.getDb().executeSql(
      `SELECT id, state, data FROM ${boss.quotedSchema}.job
         WHERE name = $1 AND singleton_key = $2 AND state < 'completed'`,
      [boss.queue, sessionId],
    );
    const rows = jobs.rows as { id: string; state: string; data: SessionJobData }[];
    const active = rows.filter((r) => r.state === 'active');
    if (active.length > 0)
      await boss.boss.cancel(
        boss.queue,
        active.map((r) => r.id),
      );
    if (rows.some((r) => r.state !== 'active')) continue;
    // a start job whose run died before it stored the session is queued again (its request
    // lives only there); on a session that exists, a start job resumes it
    const start = active.find((r) => r.data?.kind === 'start')?.data;
    const data: SessionJobData =
      start !== undefined && (await store.get(sessionId)) === undefined
        ? start
        : { kind: 'resume', sessionId, why: 'orphaned' };
    if ((await boss.boss.send(boss.queue, data, { singletonKey: sessionId })) !== null) queued++;
  }
  return queued;
}
