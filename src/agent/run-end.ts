import { UNCHANGED } from './step-commits.js';
import { MusterError, abortedError, toMusterError } from '../errors/index.js';
import { addUsage } from '../model/index.js';
import type { SessionStore } from '../session/index.js';
import type { RunScope } from '../tools/index.js';
import { isoNow } from '../util/index.js';
import type { AgentScope } from './agent-scope.js';
import type { AgentEvent } from './events.js';
import type { RunEventLog } from './run-event-log.js';
import type { RunParked, RunResult } from './run-loop.js';
import type { SessionClaim } from './session-claim.js';
import type { SessionRun } from './session-run.js';

/** What ending a run needs of it. */
export interface RunEnd {
  readonly sessionId: string;
  readonly runId: string;
  readonly runtime: AgentScope;
  /** The run's store (its writes fenced by the run's lease). */
  readonly store: SessionStore;
  readonly signal: AbortSignal;
  readonly claim: SessionClaim;
  /** The session, once the run opened it. */
  readonly session: SessionRun | undefined;
  readonly scope: RunScope | undefined;
  /** The session's event log, once the run opened the session. */
  readonly log: RunEventLog | undefined;
  /** Adds an event to the run at once (usage, observer, stream, `onEvent`), unlogged. */
  publish(event: AgentEvent): void;
  /** Adds an event to the run's usage and observer only (the log delivers it). */
  observe(event: AgentEvent): void;
}

/**
 * Holds a run's last event for the commit that ends the run: with a log, the log publishes it
 * (with its `seq`) once that commit succeeded.
 */
function stage(end: RunEnd, event: AgentEvent): void {
  end.log?.stage(event);
}

/** The commit that carried a staged event succeeded: the event reaches everyone. */
function staged(end: RunEnd, event: AgentEvent): void {
  if (!end.log) return end.publish(event);
  end.observe(event);
  // without a log the event was numbered when staged; either way it goes out now
  end.log.close();
}

/**
 * Parks the run: its waits are stored and its turn committed; the session becomes `parked`
 * (the lease is released when the run ends) and `session.parked` names the waits.
 */
export async function parkRun(end: RunEnd, parked: RunParked): Promise<MusterError | undefined> {
  const { sessionId, runId } = end;
  const event: AgentEvent = {
    type: 'session.parked',
    timestamp: isoNow(),
    sessionId,
    runId,
    waits: parked.waits,
  };
  stage(end, event);
  try {
    const sampled = end.scope?.takeUsage();
    await end.store.update(sessionId, { ...UNCHANGED, status: 'parked', addUsage: sampled });
  } catch (err) {
    // the commit failed: the failure is the run's last event
    end.log?.drop(event);
    return await failRun(end, err);
  }
  staged(end, event);
  return undefined;
}

/** Records the answer and the usage spent answering servers, then `session.completed`. */
export async function completeRun(end: RunEnd, result: RunResult): Promise<void> {
  const { sessionId, runId } = end;
  const sampled = end.scope?.takeUsage();
  if (sampled) await end.store.update(sessionId, { ...UNCHANGED, addUsage: sampled });
  const event: AgentEvent = {
    type: 'session.completed',
    timestamp: isoNow(),
    sessionId,
    runId,
    content: result.content,
    ...(result.output !== undefined ? { output: result.output } : {}),
    iterations: result.iterations,
    usage: addUsage(result.usage, sampled),
  };
  stage(end, event);
  try {
    await end.session!.complete(result.content, result.output);
  } catch (err) {
    end.log?.drop(event);
    throw err;
  }
  staged(end, event);
}

/**
 * Ends the run with its failure: a lost lease is `SESSION_ALREADY_RUNNING` whatever the run
 * was doing, an abort is `ABORTED`. The session records it (unless the lease is lost: the
 * session may be another process's now, and the store would refuse the write); a store that
 * cannot is reported, not hidden (the run has failed already). `session.failed` is published
 * in every case: with its `seq` when its commit logged it, without when nothing could be
 * logged (then neither are the events held with it).
 */
export async function failRun(end: RunEnd, err: unknown): Promise<MusterError> {
  const { runtime, signal, sessionId, runId } = end;
  const lost = end.claim.lostReason;
  const error = lost
    ? lost
    : signal.aborted && !(MusterError.isInstance(err) && err.code === 'ABORTED')
      ? abortedError('The run', signal.reason)
      : err;
  const session = lost ? undefined : end.session;
  const failure = toMusterError(error, 'INTERNAL_ERROR', 'The run failed unexpectedly');
  // logged with the failure's commit; a run that lost its lease writes nothing
  const event: AgentEvent = {
    type: 'session.failed',
    timestamp: isoNow(),
    sessionId,
    runId,
    error: failure,
  };
  if (session) stage(end, event);
  const sampled = end.scope?.takeUsage();
  if (session && sampled)
    await end.store
      .update(sessionId, { ...UNCHANGED, addUsage: sampled })
      .catch((e: unknown) => runtime.reportError(e));
  if (session) await session.fail(failure).catch((e: unknown) => runtime.reportError(e));
  if (session && end.log) staged(end, event);
  else {
    end.log?.close();
    end.publish(event);
  }
  return failure;
}
