import { agentDispatchFacts, agentStartRun } from '../agent/index.js';
import type { Agent, AgentDispatchFacts, AgentEvent } from '../agent/index.js';
import { MusterError } from '../errors/index.js';
import type { DispatchableStore, Wait } from '../session/index.js';
import type { EnqueueRequest } from './worker-options.js';

/** The data of a job on the session queue (JSON). */
export type SessionJobData =
  | { readonly kind: 'start'; readonly sessionId: string; readonly request: EnqueueRequest }
  | { readonly kind: 'resume'; readonly sessionId: string; readonly why: ResumeReason };

/**
 * Why a resume job was queued: its waits were all `decided`, one of them `expires` (a delayed
 * job), its owner died (`orphaned`, the sweep), a draining worker `interrupted` its run, or
 * the MCP task it parked on is due its next poll (`task-poll`, a delayed job).
 */
export type ResumeReason = 'decided' | 'expires' | 'orphaned' | 'interrupted' | 'task-poll';

/**
 * How a session job ended: the run ended (`completed`, `parked` with the earliest expiry of its
 * waits and, when it waits on MCP tasks only, when the first is due its next poll; `failed`:
 * the session records why), there was nothing to do (`noop`: a live lease holds the session,
 * or it is gone or done), or the worker stopped it (`interrupted`).
 */
export type SessionJobOutcome =
  | { readonly kind: 'completed' | 'noop' | 'interrupted' }
  | { readonly kind: 'failed'; readonly code: string }
  | {
      readonly kind: 'parked';
      readonly expiresAt: number | undefined;
      /** When its task waits are due their next poll: set when it waits on nothing else. */
      readonly nextPollAt?: number;
    };

/**
 * Runs one session job, idempotently: a start job for a session that has messages continues it
 * (a resume), a job for a session a live lease holds is a no-op, a resume of a session that is
 * gone, completed or idle is a no-op. A job for a delegated run's session that a root's link
 * stands for resumes that root (never the delegated session with the worker's agent). The
 * run's own lease and fencing guard every write.
 */
export async function runSessionJob(
  agent: Agent,
  store: Pick<DispatchableStore, 'dispatchState'>,
  data: SessionJobData,
  signal: AbortSignal,
  facts: Pick<AgentDispatchFacts, 'nextTaskPoll'> = agentDispatchFacts(agent),
): Promise<SessionJobOutcome> {
  // status and principal only: the run reads the transcript itself
  let state = await store.dispatchState(data.sessionId);
  let sessionId = data.sessionId;
  if (state?.root !== undefined) {
    // a delegated run's session (a root links to its waits): the worker's agent is the root's,
    // and the root's resume continues this session through its link with the delegated agent
    sessionId = state.root;
    state = await store.dispatchState(sessionId);
    if (state === undefined) return { kind: 'noop' };
  }
  let events: AsyncIterable<AgentEvent>;
  if (state === undefined) {
    if (data.kind !== 'start') return { kind: 'noop' };
    // a session that exists by the time the run holds its lease was started by another job
    // of this request (queued again by the sweep or a drain): this one is a no-op
    events = agentStartRun(agent, { ...data.request, sessionId: data.sessionId, signal });
  } else {
    if (state.status === 'completed' || state.status === 'idle') return { kind: 'noop' };
    events = agent.resume(sessionId, {
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
  const pending = parked.filter((w) => w.status === 'pending');
  const expiries = pending
    .filter((w) => w.expiresAt !== undefined)
    .map((w) => Date.parse(w.expiresAt!))
    .filter((t) => Number.isFinite(t));
  const expiresAt = expiries.length > 0 ? Math.min(...expiries) : undefined;
  // a run that waits on tasks only is resumed when the first is due its next poll; one that
  // also waits for a person is resumed by the decision (its task is polled then)
  const tasks = pending.filter((w) => w.kind === 'task' && w.task !== undefined);
  if (tasks.length === 0 || tasks.length < pending.length) return { kind: 'parked', expiresAt };
  const now = Date.now();
  const nextPollAt = Math.min(...tasks.map((w) => facts.nextTaskPoll(now, w.task!.pollIntervalMs)));
  return { kind: 'parked', expiresAt, nextPollAt };
}
