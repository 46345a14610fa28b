import type { ToolErrorCode } from '../errors/index.js';
import type { AuthorizationDecision } from '../policy/index.js';
import type { EventBase } from '../util/index.js';
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

/** The fields every event carries: the time now, and the session and run ids. */
export function eventBase(scope: ToolEventScope): EventBase {
  return { timestamp: new Date().toISOString(), sessionId: scope.sessionId, runId: scope.runId };
}

/** The outcome of a call a stage refused: an error result the model can read. */
export function refusedOutcome(call: ToolCallRef, refusal: Refusal): ToolCallOutcome {
  return {
    callId: call.callId,
    toolName: call.name,
    result: errorResult(refusal.code, refusal.message),
    errorCode: refusal.code,
    executed: refusal.executed,
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

/** The `tool.completed` event of a call that ended with `outcome`. */
export function toolCompletedEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  outcome: ToolCallOutcome,
  durationMs: number,
): ToolCompletedEvent {
  return {
    type: 'tool.completed',
    ...eventBase(scope),
    callId: call.callId,
    toolName: call.name,
    isError: outcome.result.isError === true,
    content: outcome.result.content,
    ...(outcome.errorCode ? { errorCode: outcome.errorCode } : {}),
    executed: outcome.executed,
    durationMs,
  };
}

/** The `tool.decision` event of a final policy decision (never the arguments). */
export function toolDecisionEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  d: AuthorizationDecision,
  dryRun: boolean,
): ToolDecisionEvent {
  return {
    type: 'tool.decision',
    ...eventBase(scope),
    callId: call.callId,
    toolName: call.name,
    decision: d.decision,
    stage: d.stage,
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
    ...(d.ruleId !== undefined ? { ruleId: d.ruleId } : {}),
    dryRun,
  };
}

/** The `tool.approval.requested` event, sent when the policy asks its approver. */
export function toolApprovalRequestedEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  args: Readonly<Record<string, unknown>>,
): ToolApprovalRequestedEvent {
  return {
    type: 'tool.approval.requested',
    ...callSubject(scope, call, entry, args),
    ...(entry.annotations ? { annotations: entry.annotations } : {}),
  };
}

/** The `tool.called` event, sent right before the executor runs. */
export function toolCalledEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  args: Readonly<Record<string, unknown>>,
): ToolCalledEvent {
  return { type: 'tool.called', ...callSubject(scope, call, entry, args) };
}

/** The `tool.progress` event of a progress report from a running tool. */
export function toolProgressEvent(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  p: ToolProgress,
): ToolProgressEvent {
  return {
    type: 'tool.progress',
    ...eventBase(scope),
    callId: call.callId,
    toolName: entry.name,
    progress: p.progress,
    ...(p.total !== undefined ? { total: p.total } : {}),
    ...(p.message !== undefined ? { message: p.message } : {}),
  };
}

/** What the approver and the `tool.called` event see of a call: the tool, its source, the arguments. */
function callSubject(
  scope: ToolEventScope,
  call: ToolCallRef,
  entry: CatalogEntry,
  args: Readonly<Record<string, unknown>>,
) {
  return {
    ...eventBase(scope),
    callId: call.callId,
    toolName: entry.name,
    source: entry.info.source,
    ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
    arguments: args,
  };
}
