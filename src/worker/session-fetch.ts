import type { WorkerBoss } from './worker-boss.js';

/** A session job as the loop fetched it (now `active`). */
export interface FetchedJob {
  readonly id: string;
  readonly data: unknown;
}

/**
 * Fetches up to `batchSize` due session jobs, at most one per session, skipping every session
 * that already has an `active` job. pg-boss's own `fetch()` on a singleton queue would try to
 * activate such a job too: the queue's unique index refuses it, and pg-boss turns that failure
 * into an empty answer for the whole batch, so one session with a job still active and another
 * queued would stall the queue on every worker (docs/decisions.md, "Workers on pg-boss").
 * The index stays the guard: two fetches racing for one session's jobs still collide, and the
 * one that loses fails (the caller tries again; nothing is activated by a failed fetch).
 */
export async function fetchSessionJobs(boss: WorkerBoss, batchSize: number): Promise<FetchedJob[]> {
  const s = boss.quotedSchema;
  const found = await boss.boss.getDb().executeSql(
    `WITH next AS (
       SELECT j.id, j.singleton_key, j.priority, j.created_on FROM ${s}.job j
       WHERE j.name = $1 AND j.state < 'active' AND j.start_after < now()
         AND NOT EXISTS (SELECT 1 FROM ${s}.job a WHERE a.name = $1 AND a.state = 'active'
           AND a.singleton_key IS NOT DISTINCT FROM j.singleton_key)
       ORDER BY j.priority DESC, j.created_on, j.id
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ), firsts AS (
       SELECT id, row_number() OVER (PARTITION BY COALESCE(singleton_key, id::text)
         ORDER BY priority DESC, created_on, id) AS n
       FROM next
     )
     UPDATE ${s}.job j SET state = 'active', started_on = now(),
       retry_count = CASE WHEN j.started_on IS NOT NULL THEN j.retry_count + 1 ELSE j.retry_count END
     FROM firsts WHERE j.name = $1 AND j.id = firsts.id AND firsts.n = 1
     RETURNING j.id, j.data`,
    [boss.queue, batchSize],
  );
  return found.rows as FetchedJob[];
}
