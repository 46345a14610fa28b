import type PgBoss from 'pg-boss';
import type { ResumeReason, SessionJobOutcome } from './session-jobs.js';
import type { WorkerBoss } from './worker-boss.js';

/** How long the loop waits before asking again when a fetch found no job, in ms. */
const IDLE_POLL_MS = 100;

/** How often the loop asks whether a sweep is due, in ms. */
const SWEEP_FETCH_MS = 1000;

/** What the loop runs: the session jobs, the sweep, and the resume of a run it stops. */
export interface JobLoopParts {
  readonly boss: WorkerBoss;
  readonly concurrency: number;
  /** How often a sweep is due, in seconds. */
  readonly sweepSeconds: number;
  readonly session: (data: unknown, signal: AbortSignal) => Promise<SessionJobOutcome>;
  readonly sweep: () => Promise<unknown>;
  /** Queues the session's resume (at `startAfter`, or now). */
  readonly resumeLater: (sessionId: string, why: ResumeReason, startAfter?: Date) => Promise<void>;
}

interface ActiveJob {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * Muster's own fetch/complete loop over pg-boss (not `work()`, whose pollers wait at least
 * 0.5 s between fetches): it fetches as many session jobs as it has free slots, asks again as
 * soon as one ends, and completes, fails or re-queues each itself.
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
   * Takes no new job, waits up to `ms` for the current ones, then stops those still going on
   * and waits for them to end (their runs release their leases as they end).
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
    if (first === 'timeout') for (const job of this.#active.values()) job.controller.abort();
    await all();
    await this.#sweeping;
  }

  async #loop(): Promise<void> {
    const { boss, concurrency } = this.#parts;
    while (this.#taking) {
      const free = concurrency - this.#active.size;
      let fetched = 0;
      if (free > 0) {
        // a fetch that fails (a singleton key already active in the batch) finds nothing
        const jobs = await boss.boss
          .fetch<unknown>(boss.queue, { batchSize: free })
          .catch(() => [] as PgBoss.Job<unknown>[]);
        // taken even when drained meanwhile: the drain waits for them like any other
        for (const job of jobs) this.#take(job);
        fetched = jobs.length;
      }
      this.#maybeSweep();
      if (fetched === 0 || this.#active.size >= concurrency)
        await this.#idle(fetched === 0 ? IDLE_POLL_MS : undefined);
    }
  }

  /** Resolves after `ms` (when given), or as soon as a job ends or the loop is drained. */
  #idle(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        if (this.#wake === done) this.#wake = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  #take(job: PgBoss.Job<unknown>): void {
    const controller = new AbortController();
    const done = this.#handle(job, controller.signal).finally(() => {
      this.#active.delete(job.id);
      this.#wake?.();
    });
    this.#active.set(job.id, { controller, done });
  }

  async #handle(job: PgBoss.Job<unknown>, signal: AbortSignal): Promise<void> {
    const { boss } = this.#parts;
    const sessionId = (job.data as { sessionId?: unknown } | null)?.sessionId;
    let outcome: SessionJobOutcome;
    try {
      outcome = await this.#parts.session(job.data, signal);
    } catch (err) {
      // the store or the queue failed: pg-boss re-delivers it (retryLimit, default 2)
      await boss.boss
        .fail(boss.queue, job.id, { message: err instanceof Error ? err.message : String(err) })
        .catch(() => undefined);
      return;
    }
    try {
      // queued before the job completes: a crash in between leaves the sweep a running session
      if (outcome.kind === 'interrupted' && typeof sessionId === 'string')
        await this.#parts.resumeLater(sessionId, 'interrupted');
      if (
        outcome.kind === 'parked' &&
        outcome.expiresAt !== undefined &&
        typeof sessionId === 'string'
      )
        await this.#parts.resumeLater(sessionId, 'expires', new Date(outcome.expiresAt + 1000));
    } finally {
      // the outcome stays on the job (its `output`): a run refused before it stored anything
      // (an invalid request) shows only there
      await boss.boss
        .complete(boss.queue, job.id, {
          outcome: outcome.kind,
          ...(outcome.kind === 'failed' ? { code: outcome.code } : {}),
        })
        .catch(() => undefined);
    }
  }

  /** Runs a sweep job when one is due (one at a time), and keeps one queued. */
  #maybeSweep(): void {
    const { boss, sweepSeconds } = this.#parts;
    if (Date.now() - this.#lastSweepSent >= sweepSeconds * 1000) {
      this.#lastSweepSent = Date.now();
      // dropped (null) while one is queued: that is the point
      void boss.boss
        .send(boss.sweepQueue, {}, { singletonKey: 'sweep', startAfter: sweepSeconds })
        .catch(() => undefined);
    }
    if (this.#sweeping || Date.now() - this.#lastSweepFetch < SWEEP_FETCH_MS) return;
    this.#lastSweepFetch = Date.now();
    this.#sweeping = (async () => {
      const [job] = await boss.boss.fetch<unknown>(boss.sweepQueue, { batchSize: 1 });
      if (job === undefined) return;
      try {
        await this.#parts.sweep();
      } finally {
        // the next sweep: this one is active, so the queue takes it
        await boss.boss
          .send(boss.sweepQueue, {}, { singletonKey: 'sweep', startAfter: sweepSeconds })
          .catch(() => undefined);
        await boss.boss.complete(boss.sweepQueue, job.id).catch(() => undefined);
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        this.#sweeping = undefined;
      });
  }
}
