import { SessionError } from '../errors/index.js';
import type { SessionLease, SessionStore } from '../session/index.js';
import type { AgentRuntime } from './agent-runtime.js';
import { guardStore } from './store-guard.js';

/** How long a store lease is taken for. Renewal and the agent's `sessionLeaseMs` come with durable stores. */
const LEASE_TTL_MS = 5 * 60_000;

/** A session claimed by one run: in this process, and in the store when it offers leases. */
export interface SessionClaim {
  /** Claims the store's lease (stores shared by replicas); fails when another owner runs it. */
  lease(store: SessionStore, runId: string): Promise<void>;
  /** Ends the claim: releases the lease and marks the session idle here. Never throws. */
  release(onError: (err: unknown) => void): Promise<void>;
}

/**
 * Claims `sessionId` for one run of this agent. Fails at once with `SESSION_ALREADY_RUNNING`
 * when this agent already runs it; the store's lease is claimed later, once the request is
 * known to be valid.
 */
export function claimSession(runtime: AgentRuntime, sessionId: string): SessionClaim {
  if (runtime.running.has(sessionId)) {
    throw new SessionError(
      'SESSION_ALREADY_RUNNING',
      `Session '${sessionId}' already has a run in progress: wait for it or use another session.`,
      { sessionId },
    );
  }
  const end = runtime.startRun(sessionId);
  let held: SessionLease | undefined;
  return {
    async lease(store, runId) {
      if (!store.acquire) return;
      const acquire = store.acquire.bind(store);
      held = await guardStore(sessionId, 'claim the session', () =>
        acquire(sessionId, runId, LEASE_TTL_MS),
      );
      if (!held) {
        throw new SessionError(
          'SESSION_ALREADY_RUNNING',
          `Session '${sessionId}' is running elsewhere: wait for it or use another session.`,
          { sessionId },
        );
      }
    },
    async release(onError) {
      try {
        if (held) {
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
