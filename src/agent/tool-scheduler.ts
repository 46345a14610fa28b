import { notRunOutcome, runToolCall, toolCompletedEvent } from '../tools/index.js';
import type { ToolCallEnvironment, ToolCallOutcome, ToolCallRequest } from '../tools/index.js';
import type { RunObserver } from './run-observer.js';

/** Commits around each call: its start before it runs, its outcome once it has one. */
export interface CallCommits {
  /** Resolves once the call's start is committed; a rejection means the call must not run. */
  started(call: ToolCallRequest): Promise<unknown>;
  /**
   * Resolves once the outcome at `index` (response order) is committed, which waits for the
   * outcomes before it. A rejection stops the turn: no later call starts.
   */
  finished(index: number, outcome: ToolCallOutcome): Promise<void>;
}

/**
 * Runs one turn's calls in response order. Consecutive calls to tools annotated read-only run
 * concurrently; any other call runs alone. Outcomes come back in response order. Once the run
 * is aborted, calls that had not started are recorded as not run. Each call runs within
 * `observer.toolCall`. With `commits`, each call's start and outcome are committed before the
 * next batch begins; the first commit that fails is thrown once the batch in flight has settled.
 * With `admit` (the run's budget, SPEC 15.4), each call is admitted before it starts: a call
 * it refuses is recorded as not run, with the text `admit` returned as its error result.
 */
export async function runTurnCalls(
  calls: readonly ToolCallRequest[],
  env: ToolCallEnvironment,
  observer: RunObserver,
  commits?: CallCommits,
  admit?: (call: ToolCallRequest) => string | undefined,
): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  let failure: { error: unknown } | undefined;
  const step = async (call: ToolCallRequest, index: number): Promise<ToolCallOutcome> => {
    let outcome: ToolCallOutcome;
    // admitted before anything awaits: the calls of a batch are admitted in response order
    const refused = admit?.(call);
    try {
      if (refused !== undefined) outcome = notRun(call, env, refused);
      else {
        if (commits && !env.signal.aborted) await commits.started(call);
        outcome = await observer.toolCall(call, env, runOne);
      }
    } catch (error) {
      failure ??= { error };
      outcome = notRun(
        call,
        env,
        'Error [SESSION_STORE_FAILED]: the start of this call could not be recorded; it was not executed.',
      );
    }
    if (commits)
      await commits.finished(index, outcome).catch((error: unknown) => (failure ??= { error }));
    return outcome;
  };
  let i = 0;
  while (i < calls.length && !failure) {
    const j = batchEnd(calls, i, env.catalog);
    // a batch of one (the usual turn) awaits its call alone: no batch array nor Promise.all
    if (j === i + 1) outcomes.push(await step(calls[i]!, i));
    else {
      const batch = calls.slice(i, j);
      outcomes.push(...(await Promise.all(batch.map((c, k) => step(c, i + k)))));
    }
    i = j;
  }
  if (failure) throw failure.error;
  return outcomes;
}

/**
 * The end (exclusive) of the batch of calls that starts at `from`: the call alone, or with the
 * read-only calls right after it when it is read-only itself.
 */
function batchEnd(
  calls: readonly { readonly name: string }[],
  from: number,
  catalog: ToolCallEnvironment['catalog'],
): number {
  let end = from + 1;
  if (isReadOnly(calls[from]!, catalog))
    while (end < calls.length && isReadOnly(calls[end]!, catalog)) end++;
  return end;
}

/**
 * The calls of a turn that {@link runTurnCalls} starts first (its first batch), whose starts
 * may ride the commit of the turn's own message.
 */
export function firstBatch<T extends { readonly name: string }>(
  calls: readonly T[],
  catalog: ToolCallEnvironment['catalog'],
): readonly T[] {
  return calls.length === 0 ? [] : calls.slice(0, batchEnd(calls, 0, catalog));
}

function isReadOnly(call: { readonly name: string }, catalog: ToolCallEnvironment['catalog']) {
  return catalog.get(call.name)?.annotations?.readOnlyHint === true;
}

async function runOne(call: ToolCallRequest, env: ToolCallEnvironment): Promise<ToolCallOutcome> {
  if (!env.signal.aborted) {
    try {
      return await runToolCall(call, env);
    } catch (err) {
      // runToolCall rejects only when the run is aborted mid-decision; anything else is a bug
      // that must still leave a result for the call
      if (!env.signal.aborted) {
        const message = err instanceof Error ? err.message : String(err);
        return notRun(
          call,
          env,
          `Error [TOOL_EXECUTION_FAILED]: ${message}`,
          'TOOL_EXECUTION_FAILED',
        );
      }
    }
  }
  return notRun(
    call,
    env,
    'Error [ABORTED]: the run was aborted before this call ran; it was not executed.',
  );
}

/** The outcome (and `tool.completed` event) of a call that never ran. */
function notRun(
  call: ToolCallRequest,
  env: ToolCallEnvironment,
  content: string,
  errorCode?: 'TOOL_EXECUTION_FAILED',
): ToolCallOutcome {
  const outcome = notRunOutcome(call, content, errorCode);
  env.emit(toolCompletedEvent(env, call, outcome, 0));
  return outcome;
}
