import type { ToolErrorCode } from '../errors/index.js';
import type { AuthorizationDecision } from '../policy/index.js';
import type { EventBase } from '../util/index.js';
import { isoNow } from '../util/index.js';
import type { Refusal } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type {
  ToolApprovalRequestedEvent,
  ToolCalledEvent,
  ToolCompletedEvent,
  ToolDecisionEvent,
  ToolProgressEvent,
} from './tool-events.js';
import { errorResult } from './tool-result.js';
import type { ToolCallOutcome, ToolCallRef, ToolEventScope } from './tool-call-types.js';
import type { ToolProgress } from './tool-types.js';

/** The fields every event carries: the time now (see `isoNow`), and the session and run ids. */
export function eventBase(scope: ToolEventScope): EventBase {
  return { timestamp: isoNow(), sessionId: scope.sessionId, runId: scope.runId };
}

/** The outcome of a call a stage refused: an error result the model can read. */
export function refusedOutcome(call: ToolCallRef, refusal: Refusal): ToolCallOutcome {
  return {
    callId: call.callId,
    toolName: call.name,
    result: errorResult(refusal.code, refusal.message),
    errorCode: refusal.code,
    executed: refusal.executed,
    ...(refusal.decidedBy ? { decidedBy: refusal.decidedBy } : {}),
  };
}

/**
 * The outcome of a call that was never run (the run was aborted, or its turn asked for too
 * many calls): an error result with `content`, and `errorCode` when there is one.
 */
export function notRunOutcome(
  call: ToolCallRef,
  content: string,
  errorCode?: ToolErrorCode,
): ToolCallOutcome {
  return {
    callId: call.callId,
    toolName: call.name,
    result: { content, isError: true },
    ...(errorCode ? { errorCode } : {}),
    executed: false,
  };
}

// The builders below fill object literals directly, with optional fields added last: they run
// several times per call, and spreading a helper's object into each was measurably slower.

/** The `tool.completed` event of a call that ended with `outcome`. */
export function toolCompletedEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  outcome: ToolCallOutcome,
  durationMs: number,
): ToolCompletedEvent {
  const event: Mutable<ToolCompletedEvent> = {
    type: 'tool.completed',
    timestamp: isoNow(),
    sessionId: scope.sessionId,
    runId: scope.runId,
    callId: call.callId,
    toolName: call.name,
    isError: outcome.result.isError === true,
    content: outcome.result.content,
    executed: outcome.executed,
    durationMs,
  };
  if (outcome.errorCode) event.errorCode = outcome.errorCode;
  return event;
}

/** The `tool.decision` event of a final policy decision (never the arguments). */
export function toolDecisionEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  d: AuthorizationDecision,
  dryRun: boolean,
): ToolDecisionEvent {
  const event: Mutable<ToolDecisionEvent> = {
    type: 'tool.decision',
    timestamp: isoNow(),
    sessionId: scope.sessionId,
    runId: scope.runId,
    callId: call.callId,
    toolName: call.name,
    decision: d.decision,
    stage: d.stage,
    dryRun,
  };
  if (d.reason !== undefined) event.reason = d.reason;
  if (d.ruleId !== undefined) event.ruleId = d.ruleId;
  return event;
}

/** The `tool.approval.requested` event, sent when the policy asks its approver. */
export function toolApprovalRequestedEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  args: Readonly<Record<string, unknown>>,
): ToolApprovalRequestedEvent {
  const event: Mutable<ToolApprovalRequestedEvent> = {
    type: 'tool.approval.requested',
    timestamp: isoNow(),
    sessionId: scope.sessionId,
    runId: scope.runId,
    callId: call.callId,
    toolName: entry.name,
    source: entry.info.source,
    arguments: args,
  };
  if (entry.info.server !== undefined) event.server = entry.info.server;
  if (entry.annotations) event.annotations = entry.annotations;
  return event;
}

/** The `tool.called` event, sent right before the executor runs. */
export function toolCalledEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  args: Readonly<Record<string, unknown>>,
): ToolCalledEvent {
  const event: Mutable<ToolCalledEvent> = {
    type: 'tool.called',
    timestamp: isoNow(),
    sessionId: scope.sessionId,
    runId: scope.runId,
    callId: call.callId,
    toolName: entry.name,
    source: entry.info.source,
    arguments: args,
  };
  if (entry.info.server !== undefined) event.server = entry.info.server;
  return event;
}

/** The `tool.progress` event of a progress report from a running tool. */
export function toolProgressEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  p: ToolProgress,
): ToolProgressEvent {
  const event: Mutable<ToolProgressEvent> = {
    type: 'tool.progress',
    timestamp: isoNow(),
    sessionId: scope.sessionId,
    runId: scope.runId,
    callId: call.callId,
    toolName: entry.name,
    progress: p.progress,
  };
  if (p.total !== undefined) event.total = p.total;
  if (p.message !== undefined) event.message = p.message;
  return event;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
