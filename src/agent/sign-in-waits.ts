import { MusterError } from '../errors/index.js';
import type { SessionStore } from '../session/index.js';
import { guardedStore } from './store-guard.js';
import { decidedEvent } from './wait-decisions.js';

/** How an `auth` wait is decided once its principal has signed in (see the decisions). */
const SIGNED_IN = Object.freeze({ decision: 'allow', reason: 'signed in' } as const);

/** Waits read per page while looking for a principal's `auth` waits. */
const PAGE = 500;

/**
 * Decides the pending `auth` waits of `principal` on `server` in `store` (SPEC 15.4), once
 * `submitOAuthCallback(server, url, { principal })` stored that principal's tokens: each with
 * `{ decision: 'allow', reason: 'signed in' }`, logged as `wait.decided` like any decision.
 * Then `agent.resume(sessionId)` continues each run. A wait decided meanwhile by another
 * process, or expired, is left as it is; a link to a delegated run's wait is not decided
 * (the delegated run's own wait is). Nothing happens on a store that keeps no waits.
 *
 * @returns the ids of the waits it decided.
 */
export async function decideSignIns(
  given: SessionStore,
  server: string,
  principal: string,
): Promise<readonly string[]> {
  const waits = guardedStore(given).waits;
  if (!waits) return [];
  const decided: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await waits.list({
      kind: 'auth',
      status: 'pending',
      limit: PAGE,
      ...(cursor !== undefined ? { cursor } : {}),
    });
    for (const wait of page.waits) {
      if (wait.server !== server || wait.principal !== principal || wait.child) continue;
      try {
        await waits.decide(wait.sessionId, wait.id, SIGNED_IN, {
          event: (done) => decidedEvent(done),
        });
        decided.push(wait.id);
      } catch (err) {
        // decided by another process first, or expired: nothing more to do for it
        if (!(MusterError.isInstance(err) && err.code === 'WAIT_NOT_FOUND')) throw err;
      }
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return decided;
}
