import { DECIDE_AT_ONCE } from '../policy/index.js';
import type { AuthorizationDecision, AuthorizationRequest } from '../policy/index.js';
import type { CallArguments } from './call-arguments.js';
import { toolApprovalRequestedEvent, toolDecisionEvent } from './call-events.js';
import { pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type {
  DecidedBy,
  ToolCallEnvironment,
  ToolCallOutcome,
  ToolCallRequest,
  WaitedDecision,
} from './tool-call-types.js';
import { callFingerprint } from './call-fingerprint.js';

/** Visibility: only a tool the run's catalog shows the model can be called (`TOOL_NOT_FOUND`). */
export function findVisibleTool(
  call: ToolCallRequest,
  env: ToolCallEnvironment,
): StageResult<CatalogEntry> {
  const entry = env.catalog.isVisible(call.name) ? env.catalog.get(call.name) : undefined;
  return entry
    ? pass(entry)
    : refuse(
        'TOOL_NOT_FOUND',
        `There is no tool named '${call.name}'. Call one of the tools you were given.`,
      );
}

/** What {@link authorizeCall} gives: a refusal, the outcome of a call that ends here, or leave to run. */
export type CallAuthorization = StageResult<
  ToolCallOutcome | { readonly decidedBy: DecidedBy } | undefined
>;

/**
 * Asks the policy about a call with its final arguments (deny, rules, allow, default/approval)
 * and emits the decision. Refuses a denial; resolves with the outcome of a call that ends here
 * without running (a dry run, a redirect), or with undefined when the call may run. Rejects
 * only when the run is aborted. When the policy asked its approver, `onApprovalWaited` is told
 * how long the answer took (milliseconds), which the call's `durationMs` leaves out. A decision
 * the policy takes at once (its lists or default, no rule or approver) is given at once, not
 * through a promise.
 */
export function authorizeCall(
  entry: CatalogEntry,
  call: ToolCallRequest,
  args: CallArguments,
  env: ToolCallEnvironment,
  onApprovalWaited?: (ms: number) => void,
): CallAuthorization | Promise<CallAuthorization> {
  const request = authorizationRequest(entry, call, args, env);
  const now = env.policy[DECIDE_AT_ONCE]?.(request);
  if (now === undefined) return askPolicy(entry, call, args, env, request, onApprovalWaited);
  env.policy.notify(request, now, env.onObserverError);
  return decided(entry, call, args, env, now, undefined, () =>
    callFingerprint(entry, args, env.policy.version),
  );
}

async function askPolicy(
  entry: CatalogEntry,
  call: ToolCallRequest,
  args: CallArguments,
  env: ToolCallEnvironment,
  request: AuthorizationRequest,
  onApprovalWaited: ((ms: number) => void) | undefined,
): Promise<CallAuthorization> {
  const waits = env.waits;
  // when the approver was asked: the wait for its answer is no part of the call's duration
  let asked: number | undefined;
  // computed once the call reaches `ask`, where a decision taken on a wait may apply
  let fingerprint: string | undefined;
  let waited: WaitedDecision | undefined;
  const fingerprintOf = () => (fingerprint ??= callFingerprint(entry, args, env.policy.version));
  const decision = await env.policy.authorize(request, {
    signal: env.signal,
    onApprovalRequested: () => {
      env.emit(toolApprovalRequestedEvent(env, call, entry, args));
      asked = performance.now();
    },
    ...(env.onObserverError ? { onObserverError: env.onObserverError } : {}),
    ...(waits
      ? {
          canPark: waits.canPark,
          decided: () => (waited = waits.decisionFor(call.callId, fingerprintOf()))?.answer,
        }
      : { canPark: false }),
  });
  if (asked !== undefined) onApprovalWaited?.(performance.now() - asked);
  return decided(entry, call, args, env, decision, waited, fingerprintOf);
}

/** The stage's result of `decision`, emitted as `tool.decision`. */
function decided(
  entry: CatalogEntry,
  call: ToolCallRequest,
  args: CallArguments,
  env: ToolCallEnvironment,
  decision: AuthorizationDecision,
  waited: WaitedDecision | undefined,
  fingerprintOf: () => string,
): CallAuthorization {
  env.emit(toolDecisionEvent(env, call, decision, env.policy.dryRun));
  if (decision.decision === 'park' && !env.policy.dryRun)
    return pass({
      callId: call.callId,
      toolName: entry.name,
      result: { content: 'Waiting for a decision.' },
      executed: false,
      parked: {
        fingerprint: fingerprintOf(),
        arguments: args,
        ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
        ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      },
    });
  const result = verdict(entry, call, decision, env.policy.dryRun);
  if (!waited) return result;
  const decidedBy: DecidedBy = {
    waitId: waited.waitId,
    decision: decision.decision,
    ...(waited.reason !== undefined ? { reason: waited.reason } : {}),
    ...(waited.decidedAt !== undefined ? { decidedAt: waited.decidedAt } : {}),
  };
  if (!result.ok) return { ok: false, refusal: { ...result.refusal, decidedBy } };
  // allowed (no outcome yet): the call runs, and its outcome is told who decided
  return pass(result.value ? { ...result.value, decidedBy } : { decidedBy });
}

function authorizationRequest(
  entry: CatalogEntry,
  call: ToolCallRequest,
  args: CallArguments,
  env: ToolCallEnvironment,
): AuthorizationRequest {
  return {
    kind: 'tool',
    capability: entry.name,
    toolName: entry.name,
    source: entry.info.source,
    ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
    ...(entry.info.originalName !== undefined ? { originalName: entry.info.originalName } : {}),
    arguments: args,
    ...(entry.annotations ? { annotations: entry.annotations } : {}),
    ...(entry.info.metadata ? { metadata: entry.info.metadata } : {}),
    sessionId: env.sessionId,
    runId: env.runId,
    ...(env.scope?.principal !== undefined ? { principal: env.scope.principal } : {}),
    callId: call.callId,
    iteration: call.iteration,
  };
}

function verdict(
  entry: CatalogEntry,
  call: ToolCallRequest,
  decision: AuthorizationDecision,
  dryRun: boolean,
): StageResult<ToolCallOutcome | undefined> {
  if (dryRun) {
    const would =
      decision.decision === 'allow'
        ? 'would be allowed'
        : `would be ${decision.decision === 'deny' ? 'denied' : 'redirected'}`;
    return pass({
      callId: call.callId,
      toolName: entry.name,
      result: {
        content: `Dry run: this call ${would} (${decision.stage}: ${decision.reason ?? 'no reason'}) and was not executed.`,
      },
      executed: false,
    });
  }
  if (decision.decision === 'deny') {
    return refuse(
      decision.code ?? 'TOOL_DENIED',
      `The call was denied (${decision.reason ?? decision.stage}). Do not retry it; choose another approach or ask the user.`,
    );
  }
  if (decision.decision === 'redirect') {
    return pass({
      callId: call.callId,
      toolName: entry.name,
      result: {
        // the instruction is in the result too: a turn that parks commits no separate note
        content: `Not executed: the user redirected this call with a new instruction: ${decision.message ?? ''}`,
      },
      executed: false,
      redirect: decision.message ?? '',
    });
  }
  return pass(undefined);
}
