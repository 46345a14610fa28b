import { notRunOutcome, runToolCall, toolCompletedEvent } from '../tools/index.js';
import type { ToolCallEnvironment, ToolCallOutcome, ToolCallRequest } from '../tools/index.js';

/**
 * Runs one turn's calls in response order. Consecutive calls to tools annotated read-only run
 * concurrently; any other call runs alone. Outcomes come back in response order. Once the run
 * is aborted, calls that had not started are recorded as not run.
 */
export async function runTurnCalls(
  calls: readonly ToolCallRequest[],
  env: ToolCallEnvironment,
): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  let i = 0;
  while (i < calls.length) {
    let j = i + 1;
    if (isReadOnly(calls[i]!, env)) while (j < calls.length && isReadOnly(calls[j]!, env)) j++;
    const batch = calls.slice(i, j);
    outcomes.push(...(await Promise.all(batch.map((c) => runOne(c, env)))));
    i = j;
  }
  return outcomes;
}

function isReadOnly(call: ToolCallRequest, env: ToolCallEnvironment): boolean {
  return env.catalog.get(call.name)?.annotations?.readOnlyHint === true;
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
