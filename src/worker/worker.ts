import type PgBoss from 'pg-boss';
import { agentDispatchFacts, agentSessionStore } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import { isDispatchable } from '../session/index.js';
import type {
  DecisionQuery,
  DispatchableStore,
  SessionStore,
  WaitDecidedInTransaction,
} from '../session/index.js';
import { newId } from '../util/index.js';
import { openWorkerBoss } from './worker-boss.js';
import type { WorkerBoss } from './worker-boss.js';
import { assertEnqueueRequest, resolveWorkerOptions } from './worker-options.js';
import type { EnqueueRequest, ResolvedWorkerOptions, WorkerOptions } from './worker-options.js';
import { runSessionJob } from './session-jobs.js';
import type { ResumeReason, SessionJobData } from './session-jobs.js';
import { sweepOrphans } from './lease-sweep.js';
import { JobLoop } from './job-loop.js';
import { queueParkedResume } from './parked-resume.js';

/** What {@link Worker.enqueue} returns: the session the run goes to and its job's id. */
export interface EnqueuedRun {
  readonly sessionId: string;
  readonly jobId: string;
}

/** A store a worker can use: leases and the decision hook (the PostgreSQL store). */
type WorkerStore = SessionStore & DispatchableStore;

/**
 * Runs an agent's sessions as pg-boss jobs (SPEC 15.5): several processes share one
 * PostgreSQL database, the session store stays the truth, and every job is idempotent.
 *
 * @example
 * ```ts
 * import { createWorker } from 'muster-agent/worker';
 * const worker = createWorker({ agent, connectionString: process.env.DATABASE_URL! });
 * await worker.start();
 * process.once('SIGTERM', async () => {
 *   await worker.drain();
 *   await worker.stop();
 * });
 * ```
 */
export class Worker {
  readonly #options: ResolvedWorkerOptions;
  readonly #store: WorkerStore;
  /** How long a session job may be active without its session's lease before the sweep takes it as dead. */
  readonly #staleJobSeconds: number;
  #opening: Promise<WorkerBoss> | undefined;
  #unhook: (() => void) | undefined;
  #loop: JobLoop | undefined;
  #stopped = false;
  #drained = false;

  constructor(options: WorkerOptions) {
    this.#options = resolveWorkerOptions(options);
    const store = agentSessionStore(this.#options.agent);
    if (typeof store.acquire !== 'function')
      throw new MusterError(
        'INVALID_CONFIGURATION',
        "The agent's session store has no leases (SessionStore.acquire): a worker needs the PostgreSQL store (muster-agent/postgres), so one process at a time runs a session.",
      );
    if (!isDispatchable(store))
      throw new MusterError(
        'INVALID_CONFIGURATION',
        "The agent's session store cannot dispatch runs (no decision hook, no orphan query): a worker needs PostgresSessionStore (muster-agent/postgres) on the database pg-boss uses.",
      );
    this.#store = store;
    // a live worker takes its run's lease milliseconds after its fetch: a job active twice
    // the lease's TTL without one was left by a worker that died in between
    this.#staleJobSeconds = Math.max(
      1,
      Math.ceil((2 * agentDispatchFacts(this.#options.agent).sessionLeaseMs) / 1000),
    );
  }

  /**
   * Connects pg-boss (checking its schema version and creating the queues), registers the
   * store's decision hook and starts taking jobs: at most `concurrency` runs at once.
   */
  async start(): Promise<void> {
    this.#assertOpen('start');
    if (this.#drained)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'This worker was drained: it takes no more jobs (enqueue() still works). Create a new worker (createWorker) to take jobs again.',
      );
    const boss = await this.#open();
    if (this.#loop) return;
    this.#loop = new JobLoop({
      boss,
      concurrency: this.#options.concurrency,
      sweepSeconds: this.#options.sweepSeconds,
      session: (data, signal) =>
        runSessionJob(this.#options.agent, this.#store, data as SessionJobData, signal),
      sweep: () => sweepOrphans(boss, this.#store, this.#staleJobSeconds),
      resumeLater: (sessionId, why, startAfter) =>
        this.#resumeParked(boss, sessionId, why, startAfter),
      requeue: (data) => this.#requeue(boss, data as SessionJobData),
      report: (err) => this.#report(err),
    });
    // the first sweep; a second queued one is dropped by the queue's policy
    await boss.boss.send(
      boss.sweepQueue,
      {},
      { singletonKey: 'sweep', startAfter: this.#options.sweepSeconds },
    );
    this.#loop.start();
  }

  /**
   * Queues a run of `request` (checked first: nothing is queued when it is refused) and
   * returns its session id. Connects pg-boss on first use without taking jobs, so a process
   * can enqueue without `start()`.
   */
  async enqueue(request: EnqueueRequest): Promise<EnqueuedRun> {
    this.#assertOpen('enqueue');
    assertEnqueueRequest(request);
    const boss = await this.#open();
    const sessionId = request.sessionId ?? newId('session');
    const data: SessionJobData = { kind: 'start', sessionId, request: { ...request, sessionId } };
    const jobId = await boss.boss.send(boss.queue, data, { singletonKey: sessionId });
    return { sessionId, jobId: sentId(jobId, boss.queue) };
  }

  /**
   * Takes no new job, lets the current runs finish or park for up to `drainMs`, then stops
   * those still going on (each gets a resume job, so another worker continues it) and waits
   * until their leases are released.
   */
  async drain(): Promise<void> {
    this.#drained = true;
    await this.#loop?.drain(this.#options.drainMs);
  }

  /**
   * Drains at once (`drainMs` 0: current runs are stopped and queued for resume, their leases
   * released), removes the decision hook and stops a pg-boss the worker made. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#loop?.drain(0);
    // an open still under way registers the hook when it ends: wait for it, then remove it
    const opened = await this.#opening?.catch(() => undefined);
    this.#unhook?.();
    this.#unhook = undefined;
    if (opened?.owned) await opened.boss.stop({ graceful: false, wait: true, close: true });
  }

  #open(): Promise<WorkerBoss> {
    this.#opening ??= (async () => {
      const boss = await openWorkerBoss(this.#options);
      try {
        // a decision queues its resume in its own transaction, on the store's connection
        if (!(await this.#store.hasRelation(`${boss.quotedSchema}.job`)))
          throw new MusterError(
            'INVALID_CONFIGURATION',
            `The session store's database has no pg-boss schema '${this.#options.schema}': the store and pg-boss must use the same PostgreSQL database (a decision queues its resume in its own transaction). Give both the same connection.`,
          );
        this.#unhook = this.#store.onWaitDecided((decided) => this.#onDecided(boss, decided));
      } catch (err) {
        if (boss.owned)
          await boss.boss.stop({ graceful: false, wait: true }).catch(() => undefined);
        throw err;
      }
      return boss;
    })().catch((err: unknown) => {
      this.#opening = undefined;
      throw err;
    });
    return this.#opening;
  }

  /**
   * In the decision's transaction: once no wait is pending, the resume job commits with it. A
   * delegated run's wait resumes its root, which continues the delegated run through its link.
   */
  async #onDecided(boss: WorkerBoss, decided: WaitDecidedInTransaction): Promise<void> {
    if (decided.pending > 0) return;
    await this.#sendResume(boss, decided.resumeSessionId, 'decided', undefined, decided.query);
  }

  /** The delayed resume of a parked run, one chain per session (see {@link queueParkedResume}). */
  async #resumeParked(
    boss: WorkerBoss,
    sessionId: string,
    why: ResumeReason,
    at: Date,
  ): Promise<void> {
    await queueParkedResume(boss, sessionId, at, async () => {
      const data: SessionJobData = { kind: 'resume', sessionId, why };
      const id = await boss.boss.send(boss.queue, data, {
        singletonKey: sessionId,
        startAfter: at,
      });
      return sentId(id, boss.queue);
    });
  }

  async #sendResume(
    boss: WorkerBoss,
    sessionId: string,
    why: ResumeReason,
    startAfter: Date | undefined,
    query?: DecisionQuery,
  ): Promise<void> {
    const data: SessionJobData = { kind: 'resume', sessionId, why };
    const id = await boss.boss.send(boss.queue, data, {
      singletonKey: sessionId,
      ...(startAfter !== undefined ? { startAfter } : {}),
      ...(query !== undefined
        ? { db: { executeSql: (text, values) => query(text, values) as Promise<{ rows: [] }> } }
        : {}),
    } satisfies PgBoss.SendOptions);
    sentId(id, boss.queue);
  }

  /**
   * Queues a stopped job's work again: the session's resume, or a start job's own data while
   * its session does not exist (a run stopped before it opened its session wrote nothing; a
   * start job for a session that exists by the time it runs continues it).
   */
  async #requeue(boss: WorkerBoss, data: SessionJobData): Promise<void> {
    if (data.kind === 'start' && (await this.#store.get(data.sessionId)) === undefined) {
      sentId(await boss.boss.send(boss.queue, data, { singletonKey: data.sessionId }), boss.queue);
      return;
    }
    await this.#sendResume(boss, data.sessionId, 'interrupted', undefined);
  }

  #report(err: unknown): void {
    const onError = this.#options.onError;
    if (!onError) return;
    try {
      void Promise.resolve(onError(err)).catch(() => undefined);
    } catch {
      // the reporter's own failure is dropped
    }
  }

  #assertOpen(what: string): void {
    if (this.#stopped)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `This worker was stopped: it cannot ${what}. Create a new worker (createWorker).`,
      );
  }
}

/** Creates a worker; the same as `new Worker(options)`. */
export function createWorker(options: WorkerOptions): Worker {
  return new Worker(options);
}

/** A job id pg-boss answered; `null` (an unknown queue, or a dropped job) is an error here. */
function sentId(id: string | null, queue: string): string {
  if (id === null)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `pg-boss queued nothing on '${queue}' (send answered null: the queue is unknown to its schema, or was deleted): restart the worker so it creates the queue, and check that every process uses the same pg-boss schema.`,
      { details: { queue } },
    );
  return id;
}
