import { SessionError } from '../errors/index.js';
import type { SessionLease, SessionStore, SessionWriteOptions } from '../session/index.js';
import type { AgentScope } from './agent-scope.js';
import { guardStore } from './store-operation.js';

/** The default of the agent's `sessionLeaseMs`: how long a store lease lasts unrenewed. */
export const DEFAULT_SESSION_LEASE_MS = 30_000;

/**
 * How much of the lease's TTL a renewal has to return in: a lease not confirmed for this long
 * stops the run, which leaves the rest of the TTL for the run to stop before another process
 * could take the lease.
 */
const DEADLINE_SHARE = 0.8;

/** The write options of a run that holds no store lease. */
const NO_LEASE: SessionWriteOptions = Object.freeze({});

/** A session claimed by one run: in this process, and in the store when it offers leases. */
export interface SessionClaim {
  /**
   * Claims the store's lease (stores shared by replicas) and renews it every ttl/3 while the
   * run lives; fails with `SESSION_ALREADY_RUNNING` when another owner holds a live lease.
   * The lease is lost (and the run stopped) when the store says it is gone, or when no
   * renewal has returned for 4/5 of the TTL (a store cut off without an answer).
   */
  lease(store: SessionStore, runId: string): Promise<void>;
  /** What every write of the run passes to the store: the lease, once held. */
  writeOptions(): SessionWriteOptions;
  /**
   * Runs one store operation of the run unless the lease is lost; one in flight when it is
   * lost is abandoned: it rejects at once with the lost lease's error (the store fences off
   * the write itself).
   */
  fenced<T>(operation: () => Promise<T>): Promise<T>;
  /** The `SESSION_ALREADY_RUNNING` error the lease was lost with; undefined while it holds. */
  readonly lostReason: SessionError | undefined;
  /** Ends the claim: stops renewing, releases the lease, marks the session idle here. Never throws. */
  release(onError: (err: unknown) => void): Promise<void>;
}

/**
 * Claims `sessionId` for one run of this agent. Fails at once with `SESSION_ALREADY_RUNNING`
 * when this agent already runs it; the store's lease is claimed later, once the request is
 * known to be valid. `onLost` is called once, with the error, if the lease is lost.
 */
export function claimSession(
  runtime: AgentScope,
  sessionId: string,
  onLost: (reason: SessionError) => void,
): SessionClaim {
  if (runtime.running.has(sessionId)) {
    throw new SessionError(
      'SESSION_ALREADY_RUNNING',
      `Session '${sessionId}' already has a run in progress: wait for it or use another session.`,
      { sessionId },
    );
  }
  const end = runtime.startRun(sessionId);
  const ttlMs = runtime.options.sessionLeaseMs ?? DEFAULT_SESSION_LEASE_MS;
  let lostReason: SessionError | undefined;
  let held: SessionLease | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let released = false;
  // what every write passes to the store: the lease once held (one object for the run)
  let writeOptions: SessionWriteOptions = NO_LEASE;
  // the store operations in flight while the lease is held: each is rejected when it is lost
  // (one promise per operation, nothing left behind once it settles, unlike a race against
  // one never-settling promise, which keeps a reaction per operation for the run's life)
  let inFlight: Set<(reason: SessionError) => void> | undefined;
  const stopTimers = () => {
    if (heartbeat) clearInterval(heartbeat);
    if (deadline) clearTimeout(deadline);
  };
  const lose = () => {
    if (lostReason) return;
    stopTimers();
    lostReason = new SessionError(
      'SESSION_ALREADY_RUNNING',
      `The lease on session '${sessionId}' was lost (not renewed within sessionLeaseMs, or taken over by another replica): this run stopped; resume the session to continue it.`,
      { sessionId },
    );
    const reason = lostReason;
    claim.lostReason = reason;
    if (inFlight) for (const reject of inFlight) reject(reason);
    inFlight?.clear();
    onLost(reason);
  };
  // `lostReason` is a data property that `lose` sets, not a getter: an object literal whose
  // getter closes over the run gets a hidden class of its own, and V8 keeps hidden classes in
  // old space, where nothing frees them before a full GC. Until then that class holds the
  // getter, and through it this claim and its whole run, across every young-generation GC:
  // every run was promoted to old space (docs/performance.md, "A getter that kept every run").
  const claim: { -readonly [K in keyof SessionClaim]: SessionClaim[K] } = {
    lostReason: undefined,
    writeOptions: () => writeOptions,
    fenced(operation) {
      if (lostReason) return Promise.reject(lostReason);
      if (!inFlight) return operation();
      return fence(operation(), inFlight);
    },
    async lease(store, runId) {
      if (!store.acquire) return;
      const acquire = store.acquire.bind(store);
      // the store counts the TTL from when it took the request: no earlier than this
      let confirmedAt = performance.now();
      held = await guardStore(sessionId, 'claim the session', () =>
        acquire(sessionId, runId, ttlMs),
      );
      if (!held) {
        throw new SessionError(
          'SESSION_ALREADY_RUNNING',
          `Session '${sessionId}' is running elsewhere: wait for it or use another session.`,
          { sessionId },
        );
      }
      inFlight = new Set();
      writeOptions = Object.freeze({ lease: held });
      const lease = held;
      const arm = () => {
        if (deadline) clearTimeout(deadline);
        const left = confirmedAt + ttlMs * DEADLINE_SHARE - performance.now();
        deadline = setTimeout(lose, Math.max(0, left));
        deadline.unref?.();
      };
      arm();
      let renewing = false;
      heartbeat = setInterval(
        () => {
          if (renewing || lostReason) return;
          renewing = true;
          const sentAt = performance.now();
          lease
            .renew()
            .then(
              () => {
                if (lostReason || released) return;
                confirmedAt = Math.max(confirmedAt, sentAt);
                arm();
              },
              (err: unknown) => {
                // a lease the store says is gone is lost; a store that cannot answer is retried
                // until the deadline stops the run
                if (SessionError.isInstance(err) && err.code === 'SESSION_ALREADY_RUNNING') lose();
                else if (!lostReason) runtime.reportError(err);
              },
            )
            .finally(() => (renewing = false));
        },
        Math.max(1, Math.floor(ttlMs / 3)),
      );
      heartbeat.unref?.();
    },
    async release(onError) {
      released = true;
      stopTimers();
      try {
        if (held && !lostReason) {
          const lease = held;
          await guardStore(sessionId, 'release the session', () => lease.release());
        }
      } catch (err) {
        onError(err);
      } finally {
        end();
      }
    },
  };
  return claim;
}

/**
 * `pending`, settled as it settles unless a rejecter in `inFlight` is called first (the lease
 * was lost): then it rejects at once and `pending` is left to the store, which fences off the
 * write itself.
 */
function fence<T>(pending: Promise<T>, inFlight: Set<(reason: SessionError) => void>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    inFlight.add(reject);
    pending.then(
      (value) => {
        inFlight.delete(reject);
        resolve(value);
      },
      (err: unknown) => {
        inFlight.delete(reject);
        reject(err);
      },
    );
  });
}
