import type { CatalogEntry, ToolCallOutcome, ToolEvent } from '../tools/index.js';
import type { CallCommits } from './tool-scheduler.js';

// `mcp.replay: 'idempotent'` (SPEC 15.5): a call in flight when its run died is sent again,
// once, when its MCP tool says that is harmless. The attempt is recorded before the send, in
// the session's call starts, so a replay that is itself in flight at a crash stays unknown.

/**
 * What a call's entry among the session's call starts (`SessionState.startedCalls`) begins
 * with when it records a replay: `replay:<callId>`. Model call ids never take this form in
 * practice; one that did would only be treated as replayed already (unknown), never sent twice.
 */
const REPLAY_MARK = 'replay:';

/** The call-start entry that records the replay of `callId`. */
export function replayMark(callId: string): string {
  return `${REPLAY_MARK}${callId}`;
}

/** True when `started` records a replay of `callId` (it was sent again once already). */
export function wasReplayed(started: readonly string[] | undefined, callId: string): boolean {
  return started?.includes(replayMark(callId)) === true;
}

/**
 * True when a call of `entry` (the tool in the resumed run's catalog) may be sent again: an
 * MCP tool annotated `idempotentHint` or `readOnlyHint`. Typed facts only; no name, no text.
 */
export function isReplayable(entry: CatalogEntry | undefined): boolean {
  if (entry?.info.source !== 'mcp') return false;
  const a = entry.annotations;
  return a?.idempotentHint === true || a?.readOnlyHint === true;
}

/** The start of a replayed call records its replay mark: a crash during it leaves it unknown. */
export function replayCommits(
  commits: CallCommits,
  replaying: ReadonlySet<string>,
  recordReplay: (callId: string) => Promise<unknown>,
): CallCommits {
  return {
    started: (call) =>
      replaying.has(call.callId) ? recordReplay(call.callId) : commits.started(call),
    finished: (index, outcome) =>
      commits.finished(index, replaying.has(outcome.callId) ? replayedOutcome(outcome) : outcome),
  };
}

/**
 * The `tool.completed` event of a replayed call as the transcript records it: one the
 * pipeline did not send again (refused by policy, a hook, a check) is still unknown.
 */
export function replayedEvent(event: ToolEvent, replaying: ReadonlySet<string>): ToolEvent {
  if (event.type !== 'tool.completed' || event.executed || !replaying.has(event.callId))
    return event;
  return {
    ...event,
    content: notSentAgain(event.content),
    isError: true,
    executed: true,
    errorCode: 'TOOL_OUTCOME_UNKNOWN',
  };
}

/**
 * A replayed call's outcome: its own when the call was sent again (or parked); otherwise the
 * call's outcome is still unknown (it was in flight at the crash), saying why it was not sent.
 */
function replayedOutcome(outcome: ToolCallOutcome): ToolCallOutcome {
  if (outcome.executed || outcome.parked) return outcome;
  return {
    callId: outcome.callId,
    toolName: outcome.toolName,
    result: { content: notSentAgain(outcome.result.content), isError: true },
    errorCode: 'TOOL_OUTCOME_UNKNOWN',
    executed: true,
    // a policy's redirect still reaches the model
    ...(outcome.redirect !== undefined ? { redirect: outcome.redirect } : {}),
  };
}

function notSentAgain(why: string): string {
  return `Error [TOOL_OUTCOME_UNKNOWN]: the run ended while this call was in flight, before its result was recorded; it may or may not have run. It was not sent again: ${why}`;
}
