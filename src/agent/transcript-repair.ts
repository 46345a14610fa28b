import type { ModelMessage, ToolResultMessage } from '../model/index.js';
import { toolCompletedEvent } from '../tools/index.js';
import type { ToolCompletedEvent } from '../tools/index.js';
import { deepFreeze } from '../util/index.js';

/** One call a transcript asked for but never answered, with the result it is given. */
export interface RepairedCall {
  /** The error result appended to the transcript for the call. */
  readonly message: ToolResultMessage;
  /**
   * True when the call's start was committed (it was in flight: it may have run), false when
   * it never started. Reported as `executed` on its `tool.completed` event.
   */
  readonly executed: boolean;
  /** `TOOL_OUTCOME_UNKNOWN` for a call that was in flight; none for one that never started. */
  readonly errorCode?: 'TOOL_OUTCOME_UNKNOWN';
}

/**
 * Results for tool calls that a transcript asked for but never answered (a run that died
 * between committing the model's turn and committing its results). A call whose start was
 * committed (`started`) was in flight: it is marked `TOOL_OUTCOME_UNKNOWN` for the model. A
 * call that never started is reported as not run. Neither is replayed here (a resume with
 * `mcp.replay: 'idempotent'` leaves out, in `waiting`, the calls it may send again). Append-only
 * transcripts can only have such calls at their end, so the results are appended. Calls in
 * `waiting` parked on a wait (SPEC 15.1) and are left for the resumed run.
 */
export function unansweredCallResults(
  messages: readonly ModelMessage[],
  started: readonly string[] | undefined,
  waiting: ReadonlySet<string> = new Set(),
): RepairedCall[] {
  // a call that parked on a wait did not run: it runs again with its decision, not repaired
  const answered = new Set<string>(waiting);
  for (const m of messages) if (m.role === 'tool') answered.add(m.callId);
  // a store without call starts (a custom store) cannot tell: every unanswered call is unknown
  const inFlight = started ? new Set(started) : undefined;
  const out: RepairedCall[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const part of m.content) {
      if (part.type !== 'tool-call' || answered.has(part.callId)) continue;
      const unknown = inFlight === undefined || inFlight.has(part.callId);
      const message: ToolResultMessage = deepFreeze({
        role: 'tool',
        callId: part.callId,
        toolName: part.name,
        content: unknown
          ? 'Error [TOOL_OUTCOME_UNKNOWN]: the run ended while this call was in flight, before its result was recorded; it may or may not have run, and it was not retried.'
          : 'Error [ABORTED]: the run ended before this call started; it was not executed.',
        isError: true,
      });
      out.push(
        unknown
          ? { message, executed: true, errorCode: 'TOOL_OUTCOME_UNKNOWN' }
          : { message, executed: false },
      );
    }
  }
  return out;
}

/**
 * The `tool.completed` event of a repaired call, so that a watcher sees every call of the
 * transcript end: its error result, `executed` (true for a call that was in flight: it may have
 * run), `TOOL_OUTCOME_UNKNOWN` for such a call, and no duration (nothing ran in this run).
 */
export function repairedCallEvent(
  scope: { readonly sessionId: string; readonly runId: string },
  repaired: RepairedCall,
): ToolCompletedEvent {
  const { message } = repaired;
  return toolCompletedEvent(
    scope,
    { callId: message.callId, name: message.toolName },
    {
      callId: message.callId,
      toolName: message.toolName,
      result: { content: message.content, isError: true },
      executed: repaired.executed,
      ...(repaired.errorCode ? { errorCode: repaired.errorCode } : {}),
    },
    0,
  );
}
