import type { Agent, AgentEvent } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import type { DispatchableStore, Wait } from '../session/index.js';
import type { EnqueueRequest } from './worker-options.js';

/** The data of a job on the session queue (JSON). */
export type SessionJobData =
  | { readonly kind: 'start'; readonly sessionId: string; readonly request: EnqueueRequest }
  | { readonly kind: 'resume'; readonly sessionId: string; readonly why: ResumeReason };

/**
 * Why a resume job was queued: its waits were all `decided`, one of them `expires` (a delayed
 * job), its owner died (`orphaned`, the sweep) or a draining worker `interrupted` its run.
 */
export type ResumeReason = 'decided' | 'expires' | 'orphaned' | 'interrupted';

/**
 * How a session job ended: the run ended (`completed`, `parked` with the earliest expiry of its
 * waits, `failed`: the session records why), there was nothing to do (`noop`: a live lease
 * holds the session, or it is gone or done), or the worker stopped it (`interrupted`).
 */
export type SessionJobOutcome =
  | { readonly kind: 'completed' | 'noop' | 'interrupted' }
  | { readonly kind: 'failed'; readonly code: string }
  | { readonly kind: 'parked'; readonly expiresAt: number | undefined };

/**
 * Runs one session job, idempotently: a start job for a session that has messages continues it
 * (a resume), a job for a session a live lease holds is a no-op, a resume of a session that is
 * gone, completed or idle is a no-op. The run's own lease and fencing guard every write.
 */
export async function runSessionJob(
  agent: Agent,
  store: Pick<DispatchableStore, 'dispatchState'>,
  data: SessionJobData,
  signal: AbortSignal,
): Promise<SessionJobOutcome> {
  // status and principal only: the run reads the transcript itself
  const state = await store.dispatchState(data.sessionId);
  let events: AsyncIterable<AgentEvent>;
  if (state === undefined) {
    if (data.kind !== 'start') return { kind: 'noop' };
    events = agent.run({ ...data.request, sessionId: data.sessionId, signal });
  } else {
    if (state.status === 'completed' || state.status === 'idle') return { kind: 'noop' };
    events = agent.resume(data.sessionId, {
      signal,
      ...(state.principal !== undefined ? { principal: state.principal } : {}),
    });
  }
  let parked: readonly Wait[] | undefined;
  try {
    for await (const ev of events) {
      if (ev.type === 'session.parked') parked = ev.waits;
      else if (ev.type === 'session.completed') parked = undefined;
    }
  } catch (err) {
    if (signal.aborted) return { kind: 'interrupted' };
    if (MusterError.isInstance(err) && err.code === 'SESSION_ALREADY_RUNNING')
      return { kind: 'noop' };
    // a completed or idle session (raced with another job): nothing to continue
    if (MusterError.isInstance(err) && err.code === 'INVALID_CONFIGURATION' && state !== undefined)
      return { kind: 'noop' };
    return { kind: 'failed', code: MusterError.isInstance(err) ? err.code : 'INTERNAL_ERROR' };
  }
  if (parked === undefined) return { kind: 'completed' };
  const expiries = parked
    .filter((w) => w.status === 'pending' && w.expiresAt !== undefined)
    .map((w) => Date.parse(w.expiresAt!))
    .filter((t) => Number.isFinite(t));
  return { kind: 'parked', expiresAt: expiries.length > 0 ? Math.min(...expiries) : undefined };
}
