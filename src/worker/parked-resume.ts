import type { WorkerBoss } from './worker-boss.js';

/**
 * Queues the delayed resume of a run that parked (its tasks' next poll, or its waits' expiry)
 * so that the session keeps one such chain: nothing is queued when a job of the session
 * already waits in the queue due at or before `at` (it resumes the run first, and its run
 * queues what it needs when it parks again), and jobs of the session queued for later than
 * `at` are cancelled once `at` is covered (a leftover `expires` resume, a second task-poll
 * chain). Without this, every park on tasks added a task-poll job beside any job already
 * queued, and a stray resume (an old `expires` job, a decision) started a second chain of
 * polls that ran for as long as the task did. `send` queues the job and returns its id.
 * Returns whether a job was queued.
 */
export async function queueParkedResume(
  boss: WorkerBoss,
  sessionId: string,
  at: Date,
  send: () => Promise<string>,
): Promise<boolean> {
  const db = boss.boss.getDb();
  const queued = await db.executeSql(
    `SELECT 1 FROM ${boss.quotedSchema}.job WHERE name = $1 AND singleton_key = $2
       AND state < 'active' AND start_after <= $3 LIMIT 1`,
    [boss.queue, sessionId, at],
  );
  const covered = queued.rows.length > 0;
  // queued before the later ones go: a crash in between leaves one job too many, never none
  const id = covered ? undefined : await send();
  // as pg-boss's cancel does, for jobs still queued only (one a worker fetched meanwhile runs)
  await db.executeSql(
    `UPDATE ${boss.quotedSchema}.job SET completed_on = now(), state = 'cancelled'
       WHERE name = $1 AND singleton_key = $2 AND state < 'active' AND start_after > $3
         AND ($4::uuid IS NULL OR id <> $4::uuid)`,
    [boss.queue, sessionId, at, id ?? null],
  );
  return !covered;
}
