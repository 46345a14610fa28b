import { SessionError } from '../errors/index.js';
import type { SessionLease, SessionStore, SessionWriteOptions } from '../session/index.js';
import type { AgentScope } from './agent-scope.js';
import { guardStore } from './store-guard.js';

/** The default of the agent's `sessionLeaseMs`: how long a store lease lasts unrenewed. */
export const DEFAULT_SESSION_LEASE_MS = 30_000;

/** A session claimed by one run: in this process, and in the store when it offers leases. */
export interface SessionClaim {
  /**
   * Claims the store's lease (stores shared by replicas) and renews it every ttl/3 while the
   * run lives; fails with `SESSION_ALREADY_RUNNING` when another owner holds a live lease.
   */
  lease(store: SessionStore, runId: string): Promise<void>;
  /** What every write of the run passes to the store: the lease, once held. */
  writeOptions(): SessionWriteOptions;
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
  const lose = () => {
    if (lostReason) return;
    lostReason = new SessionError(
      'SESSION_ALREADY_RUNNING',
      `The lease on session '${sessionId}' was lost (not renewed within sessionLeaseMs, or taken over by another replica): this run stopped; resume the session to continue it.`,
      { sessionId },
    );
    onLost(lostReason);
  };
  return {
    get lostReason() {
      return lostReason;
    },
    writeOptions: () => (held ? { lease: held } : {}),
    async lease(store, runId) {
      if (!store.acquire) return;
      const acquire = store.acquire.bind(store);
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
      const lease = held;
      let renewedAt = Date.now();
      let renewing = false;
      heartbeat = setInterval(
        () => {
          if (renewing || lostReason) return;
          renewing = true;
          lease
            .renew()
            .then(
              () => {
                renewedAt = Date.now();
              },
              (err: unknown) => {
                // a lease the store says is gone is lost; a store that cannot answer is retried
                // until the lease would have expired unrenewed
                if (
                  (SessionError.isInstance(err) && err.code === 'SESSION_ALREADY_RUNNING') ||
                  Date.now() - renewedAt >= ttlMs
                )
                  lose();
                else runtime.reportError(err);
              },
            )
            .finally(() => (renewing = false));
        },
        Math.max(1, Math.floor(ttlMs / 3)),
      );
      heartbeat.unref?.();
    },
    async release(onError) {
      if (heartbeat) clearInterval(heartbeat);
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
}
