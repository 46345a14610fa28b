import { FetchBackoff } from './fetch-backoff.js';
import { fetchSessionJobs } from './session-fetch.js';
import type { FetchedJob } from './session-fetch.js';
import type { ResumeReason, SessionJobOutcome } from './session-jobs.js';
import type { WorkerBoss } from './worker-boss.js';

/** Failed fetches in a row before the loop reports them (then every 100th). */
const FETCH_FAILURES_REPORTED = 3;

/** How often the loop asks whether a sweep is due, in ms. */
const SWEEP_FETCH_MS = 1000;

/** The least time a sweep job must have been active to be taken as left by a dead worker. */
const DEAD_SWEEP_MIN_S = 10;

/** What the loop runs: the session jobs, the sweep, and the resume of a run it stops. */
export interface JobLoopParts {
  readonly boss: WorkerBoss;
  readonly concurrency: number;
  /** How often a sweep is due, in seconds. */
  readonly sweepSeconds: number;
  readonly session: (data: unknown, signal: AbortSignal) => Promise<SessionJobOutcome>;
  readonly sweep: () => Promise<unknown>;
  /**
   * Queues the delayed resume of a session whose run parked, at `startAfter`, unless a job of
   * the session is queued at or before it (one chain of resumes per session).
   */
  readonly resumeLater: (sessionId: string, why: ResumeReason, startAfter: Date) => Promise<void>;
  /**
   * Queues a job's work again before the loop stops its run: a start job's own data (its
   * session may not exist yet), or the session's resume.
   */
  readonly requeue: (data: unknown) => Promise<void>;
  /** Told about a failure no caller sees (a resume not queued, fetches or sweeps failing). */
  readonly report: (err: unknown) => void;
}

interface ActiveJob {
  readonly job: FetchedJob;
  readonly controller: AbortController;
  done: Promise<void>;
  /** Its work was queued again (before its run was stopped). */
  requeued: boolean;
  /**
   * Its run (or its no-op) is still going on. Once it has ended, the job only waits for its
   * `complete` (or `fail`), and its slot is free for the next job.
   */
  running: boolean;
}

/**
 * Muster's own fetch/complete loop over pg-boss (not `work()`, whose pollers wait at least
 * 0.5 s between fetches): it fetches as many session jobs as it has free slots (skipping
 * sessions with a job active), asks again as soon as one ends, backs off while the queue is
 * empty, and completes, fails or re-queues each job itself. Its promises never reject:
 * failures go to `report`.
 */
export class JobLoop {
  readonly #parts: JobLoopParts;
  readonly #active = new Map<string, ActiveJob>();
  #taking = false;
  #running: Promise<void> | undefined;
  #sweeping: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #lastSweepSent = Date.now();
  #lastSweepFetch = 0;
  #lastDeadSweepCheck = 0;
  readonly #backoff = new FetchBackoff();
  #fetchFailures = 0;

  constructor(parts: JobLoopParts) {
    this.#parts = parts;
  }

  /** Starts taking jobs. */
  start(): void {
    if (this.#running) return;
    this.#taking = true;
    this.#running = this.#loop();
  }

  /**
   * Takes no new job, waits up to `ms` for the current ones, then queues the work of those
   * still going on again (so a crash from here on loses none of it), stops them and waits for
   * them to end (their runs release their leases as they end).
   */
  async drain(ms: number): Promise<void> {
    this.#taking = false;
    this.#wake?.();
    await this.#running;
    const all = () => Promise.all([...this.#active.values()].map((j) => j.done));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    });
    const first = await Promise.race([all(), timedOut]);
    clearTimeout(timer);
    if (first === 'timeout')
      for (const active of [...this.#active.values()]) {
        // a job whose run ended only waits for its completion: nothing to hand back
        if (!active.running) continue;
        await this.#requeue(active);
        active.controller.abort();
      }
    await all();
    await this.#sweeping;
  }

  async #loop(): Promise<void> {
    const { concurrency } = this.#parts;
    while (this.#taking) {
      const free = concurrency - this.#slotsTaken();
      let fetched = 0;
      if (free > 0) {
        const jobs = await this.#fetch(free);
        // taken even when drained meanwhile: the drain waits for them like any other
        for (const job of jobs) this.#take(job);
        fetched = jobs.length;
        this.#backoff.fetched(fetched, Date.now());
      }
      this.#maybeSweep();
      // with every slot busy, still woken in time for the sweep
      if (this.#slotsTaken() >= concurrency) await this.#idle(SWEEP_FETCH_MS);
      else if (fetched === 0) await this.#idle(this.nextFetchDelay());
    }
  }

  /**
   * How long the loop, idle now, waits before its next fetch, in ms: its back-off, capped by
   * the earliest delayed resume it queued (a task's next poll), so that job is taken as it
   * falls due.
   */
  nextFetchDelay(now = Date.now()): number {
    return this.#backoff.delay(now);
  }

  /** Jobs whose run is going on: the slots taken. */
  #slotsTaken(): number {
    let n = 0;
    for (const job of this.#active.values()) if (job.running) n++;
    return n;
  }

  /** The job's run ended: its slot takes the next job while its completion is written. */
  #freeSlot(active: ActiveJob): void {
    active.running = false;
    this.#wake?.();
  }

  async #fetch(batchSize: number): Promise<FetchedJob[]> {
    try {
      const jobs = await fetchSessionJobs(this.#parts.boss, batchSize);
      this.#fetchFailures = 0;
      return jobs;
    } catch (err) {
      // two workers racing for one session's jobs: the one that lost finds nothing this time
      this.#fetchFailures++;
      if (this.#fetchFailures === FETCH_FAILURES_REPORTED || this.#fetchFailures % 100 === 0)
        this.#parts.report(err);
      return [];
    }
  }

  /** Resolves after `ms`, or as soon as a job ends or the loop is drained. */
  #idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  #take(job: FetchedJob): void {
    const controller = new AbortController();
    const active: ActiveJob = {
      job,
      controller,
      requeued: false,
      running: true,
      done: Promise.resolve(),
    };
    active.done = this.#handle(active)
      .catch((err: unknown) => this.#parts.report(err))
      .finally(() => {
        this.#active.delete(job.id);
        this.#wake?.();
      });
    this.#active.set(job.id, active);
  }

  /** Queues the job's work again, once; a failure is reported (the sweep is the fallback). */
  async #requeue(active: ActiveJob): Promise<void> {
    if (active.requeued) return;
    try {
      await this.#parts.requeue(active.job.data);
      active.requeued = true;
    } catch (err) {
      this.#parts.report(err);
    }
  }

  async #handle(active: ActiveJob): Promise<void> {
    const { boss } = this.#parts;
    const { job, controller } = active;
    const sessionId = (job.data as { sessionId?: unknown } | null)?.sessionId;
    let outcome: SessionJobOutcome;
    try {
      outcome = await this.#parts.session(job.data, controller.signal);
    } catch (err) {
      // the store or the queue failed: pg-boss re-delivers it (retryLimit, default 2)
      this.#freeSlot(active);
      await boss.boss
        .fail(boss.queue, job.id, { message: err instanceof Error ? err.message : String(err) })
        .catch((e: unknown) => this.#parts.report(e));
      return;
    }
    try {
      // queued before the run was stopped; tried again here when that failed
      if (outcome.kind === 'interrupted') await this.#requeue(active);
      if (outcome.kind === 'parked' && typeof sessionId === 'string') {
        const later = resumeOfParked(outcome);
        if (later)
          await this.#parts
            .resumeLater(sessionId, later.why, later.at)
            .then(() => this.#backoff.queued(later.at.getTime()))
            .catch((err: unknown) => this.#parts.report(err));
      }
    } finally {
      this.#freeSlot(active);
      // the outcome stays on the job (its `output`): a run refused before it stored anything
      // (an invalid request) shows only there
      await boss.boss
        .complete(boss.queue, job.id, {
          outcome: outcome.kind,
          ...(outcome.kind === 'failed' ? { code: outcome.code } : {}),
        })
        .catch((err: unknown) => this.#parts.report(err));
    }
  }

  /**
   * Cancels a sweep job a worker left `active` when it died mid-sweep: the `stately` sweep
   * queue activates no other until pg-boss's maintenance expires it (every 120 s by default),
   * so every sweep would wait that long. A sweep takes milliseconds; one active for longer than
   * twice the interval (at least {@link DEAD_SWEEP_MIN_S} s) is taken as dead. A live one
   * cancelled by mistake only loses its own `complete` (reported): sweeps are idempotent.
   */
  async #releaseDeadSweep(): Promise<void> {
    const { boss, sweepSeconds } = this.#parts;
    if (Date.now() - this.#lastDeadSweepCheck < sweepSeconds * 1000) return;
    this.#lastDeadSweepCheck = Date.now();
    const stale = await boss.boss.getDb().executeSql(
      `SELECT id FROM ${boss.quotedSchema}.job WHERE name = $1 AND state = 'active'
         AND started_on < now() - make_interval(secs => $2)`,
      [boss.sweepQueue, Math.max(2 * sweepSeconds, DEAD_SWEEP_MIN_S)],
    );
    const ids = (stale.rows as { id: string }[]).map((r) => r.id);
    if (ids.length > 0) await boss.boss.cancel(boss.sweepQueue, ids);
  }

  /** Runs a sweep job when one is due (one at a time), and keeps one queued. */
  #maybeSweep(): void {
    const { boss, report, sweepSeconds } = this.#parts;
    if (Date.now() - this.#lastSweepSent >= sweepSeconds * 1000) {
      this.#lastSweepSent = Date.now();
      // dropped (null) while one is queued: that is the point
      void boss.boss
        .send(boss.sweepQueue, {}, { singletonKey: 'sweep', startAfter: sweepSeconds })
        .catch((err: unknown) => report(err));
    }
    if (this.#sweeping || Date.now() - this.#lastSweepFetch < SWEEP_FETCH_MS) return;
    this.#lastSweepFetch = Date.now();
    this.#sweeping = (async () => {
      const [job] = await boss.boss.fetch<unknown>(boss.sweepQueue, { batchSize: 1 });
      if (job === undefined) return void (await this.#releaseDeadSweep());
      try {
        await this.#parts.sweep();
      } finally {
        // the next sweep: this one is active, so the queue takes it
        await boss.boss
          .send(boss.sweepQueue, {}, { singletonKey: 'sweep', startAfter: sweepSeconds })
          .catch((err: unknown) => report(err));
        await boss.boss.complete(boss.sweepQueue, job.id).catch((err: unknown) => report(err));
      }
    })()
      .catch((err: unknown) => report(err))
      .finally(() => {
        this.#sweeping = undefined;
      });
  }
}

/**
 * The delayed resume of a parked run: at its tasks' next poll when it waits on tasks only (its
 * waits' expiry is handled by that resume, or by the one after it), else at the first
 * expiry of its waits (1 s after, so the wait is past it), else none (a decision resumes it).
 */
function resumeOfParked(
  outcome: Extract<SessionJobOutcome, { kind: 'parked' }>,
): { why: ResumeReason; at: Date } | undefined {
  const expiry = outcome.expiresAt === undefined ? undefined : outcome.expiresAt + 1000;
  if (outcome.nextPollAt !== undefined)
    return { why: 'task-poll', at: new Date(Math.min(outcome.nextPollAt, expiry ?? Infinity)) };
  return expiry === undefined ? undefined : { why: 'expires', at: new Date(expiry) };
}
