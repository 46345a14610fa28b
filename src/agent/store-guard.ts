import { GuardedWaits } from './guarded-waits.js';
import { guardStore, typedStoreError } from './store-operation.js';
import type { Fence } from './store-operation.js';
import type { RunEventLog } from './run-event-log.js';
import { UNCHANGED } from './step-commits.js';
import type {
  SessionBudget,
  SessionLogEntry,
  SessionUpdateResult,
  SessionPatch,
  SessionState,
  SessionStore,
  SessionWaits,
  SessionWriteOptions,
  SteeringTake,
} from '../session/index.js';

/** A run's view of its store (see {@link guardedStore}). */
export interface GuardedSessionStore extends SessionStore {
  /**
   * Commits the budget of session `id` (and the events the run's log holds) between the run's
   * step commits (SPEC 15.4), once no commit of the run is in flight; the commits asked for
   * meanwhile wait for it, so no commit carrying an older budget lands after a newer one.
   * Coalesced: asked again while one is pending, it is written once more after it, once. A
   * failure is dropped: the run's next commit meets it and reports it.
   */
  saveBudget(id: string): void;
}

/**
 * A view of `store` whose failures are typed by {@link guardStore}, handed to the run loop so
 * every write of a run reports `SESSION_STORE_FAILED` instead of an untyped error. Every write
 * names the run's lease (`write()`), so a store that offers leases can fence it off, and
 * every operation runs through `fence` (the run's: none once its lease is lost). With
 * `budget`, every commit of a session it gives a budget for carries it (SPEC 15.4).
 */
export function guardedStore(
  store: SessionStore,
  write: () => SessionWriteOptions = noLease,
  fence: Fence = unfenced,
  log?: () => RunEventLog | undefined,
  budget?: (sessionId: string) => SessionBudget | undefined,
): GuardedSessionStore {
  return new GuardedStore(store, write, log ? tracked(fence, log) : fence, fence, log, budget);
}

/**
 * `fence`, telling the run's event log when the run's store operations start and end: the
 * log commits held events on its own only while none is in flight (see `RunEventLog`).
 */
function tracked(fence: Fence, log: () => RunEventLog | undefined): Fence {
  return (operation) => {
    const l = log();
    if (!l) return fence(operation);
    l.enter();
    let done;
    try {
      done = fence(operation);
    } catch (err) {
      l.leave();
      throw err;
    }
    const leave = () => l.leave();
    done.then(leave, leave);
    return done;
  };
}

const noLease = (): SessionWriteOptions => ({});
const unfenced: Fence = (operation) => operation();

/** A class, not an object of closures: one is made per run. */
class GuardedStore implements GuardedSessionStore {
  #waits: SessionWaits | undefined;
  /** The run's commits in flight at the store. */
  #committing = 0;
  /** Who waits for no commit to be in flight (a budget save). */
  #quiet: (() => void)[] = [];
  /** The budget save pending or in flight: the commits asked for meanwhile wait for it. */
  #saving: Promise<void> | undefined;
  /** True once the pending save took the budget it writes. */
  #saveTaken = false;
  /** A save asked for after the pending one took its budget: one more follows it. */
  #saveAgain: string | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly write: () => SessionWriteOptions,
    private readonly fence: Fence,
    /** `fence` without the log's tracking: `update` tells the log itself. */
    private readonly commitFence: Fence,
    /** The run's event log, once open: its events ride each step commit (SPEC 15.2). */
    private readonly log?: () => RunEventLog | undefined,
    /** The run's budget as it stands, ridden by each step commit (SPEC 15.4). */
    private readonly budget?: (sessionId: string) => SessionBudget | undefined,
  ) {}

  /** The store's waits, typed like its other failures; absent when the store keeps none. */
  get waits(): SessionWaits | undefined {
    const waits = this.store.waits;
    if (!waits) return undefined;
    return (this.#waits ??= new GuardedWaits(waits, this.fence));
  }

  create(state: SessionState): Promise<void> {
    return guardStore(state.id, 'create the session', () =>
      this.fence(() => this.store.create(state, this.write())),
    );
  }

  get(id: string): Promise<SessionState | undefined> {
    return guardStore(id, 'read the session', () => this.fence(() => this.store.get(id)));
  }

  // no async frame, and the log told in its own callbacks: this wraps every commit of every run
  update(id: string, given: SessionPatch): Promise<void | SessionUpdateResult> {
    // a budget save is pending: this commit follows it (it carries a newer budget)
    const saving = this.#saving;
    if (saving) return saving.then(() => this.update(id, given));
    return this.#update(id, given, false);
  }

  saveBudget(id: string): void {
    if (this.#saving) {
      // a save that has not taken its budget yet takes what is counted now
      if (this.#saveTaken) this.#saveAgain = id;
      return;
    }
    this.#saveTaken = false;
    const saved = this.#whenQuiet()
      .then(() => {
        this.#saveTaken = true;
        return this.#update(id, { ...UNCHANGED }, true);
      })
      .then(
        () => undefined,
        () => undefined,
      );
    this.#saving = saved;
    void saved.then(() => {
      this.#saving = undefined;
      const again = this.#saveAgain;
      this.#saveAgain = undefined;
      if (again !== undefined) this.saveBudget(again);
    });
  }

  /** `saving`: the budget save's own commit, which waits for nothing but the log. */
  #update(id: string, given: SessionPatch, saving: boolean): Promise<void | SessionUpdateResult> {
    const budget = this.budget?.(id);
    const patch = budget ? withBudget(given, budget) : given;
    const log = this.log?.();
    if (!log) return this.#commit(id, patch);
    // one commit with events at a time: this one carries the next ones once it is done
    if (log.waiting)
      return log
        .idle()
        .then(() => (saving ? this.#update(id, patch, true) : this.update(id, patch)));
    const events = log.take();
    log.enter();
    this.#committing++;
    try {
      const step = withEvents(patch, events);
      return this.commitFence(() => this.store.update(id, step, this.write())).then(
        (result) => {
          this.#committed();
          // published first: leaving schedules a flush only for events still held
          log.committed(result, events !== undefined);
          log.leave();
          return result;
        },
        (err: unknown) => {
          this.#committed();
          // failed first: the flush that leaving may schedule waits as it says
          if (events) log.failed();
          log.leave();
          throw typedStoreError(err, id, 'save the session');
        },
      );
    } catch (err) {
      this.#committed();
      if (events) log.failed();
      log.leave();
      return Promise.reject(typedStoreError(err, id, 'save the session'));
    }
  }

  #commit(id: string, patch: SessionPatch): Promise<void | SessionUpdateResult> {
    this.#committing++;
    try {
      return this.commitFence(() => this.store.update(id, patch, this.write())).then(
        (result) => {
          this.#committed();
          return result;
        },
        (err: unknown) => {
          this.#committed();
          throw typedStoreError(err, id, 'save the session');
        },
      );
    } catch (err) {
      this.#committed();
      return Promise.reject(typedStoreError(err, id, 'save the session'));
    }
  }

  /** A commit of the run at the store ended: a budget save waiting for none may go. */
  #committed(): void {
    if (--this.#committing === 0 && this.#quiet.length > 0)
      for (const resolve of this.#quiet.splice(0)) resolve();
  }

  /** Resolves once no commit of the run is in flight. */
  #whenQuiet(): Promise<void> {
    if (this.#committing === 0) return Promise.resolve();
    return new Promise((resolve) => this.#quiet.push(resolve));
  }

  /** The store's `takeSteering`, fenced and typed; absent when the store has none. */
  get takeSteering(): SessionStore['takeSteering'] {
    const take = this.store.takeSteering;
    if (!take) return undefined;
    return (id: string, _options?: SessionWriteOptions, steering?: SteeringTake) =>
      guardStore(id, 'take the steering messages', () =>
        this.fence(() => take.call(this.store, id, this.write(), steering)),
      );
  }

  delete(id: string): Promise<void> {
    return guardStore(id, 'delete the session', () => this.fence(() => this.store.delete(id)));
  }
}

/**
 * `patch` carrying `events` (or none). The run builds each patch for one commit, in the shape
 * of `UNCHANGED` (step-commits.ts), so they go on it rather than on a copy, and the store's
 * reads of its patches stay monomorphic; a patch sent again after a failure gets the events
 * held then, or none. A patch that cannot be changed is copied.
 */
function withEvents(
  patch: SessionPatch,
  events: readonly SessionLogEntry[] | undefined,
): SessionPatch {
  if (!Object.isExtensible(patch)) return events ? { ...patch, appendEvents: events } : patch;
  (patch as { appendEvents?: readonly SessionLogEntry[] | undefined }).appendEvents = events;
  return patch;
}

/** `patch` carrying `budget`, on the patch itself when it can be changed (as `withEvents`). */
function withBudget(patch: SessionPatch, budget: SessionBudget): SessionPatch {
  if (!Object.isExtensible(patch)) return { ...patch, budget };
  (patch as { budget?: SessionBudget | null | undefined }).budget = budget;
  return patch;
}
