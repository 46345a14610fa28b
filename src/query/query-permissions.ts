import { compilePatterns } from '../policy/index.js';
import type { Approver, PolicySubject } from '../policy/index.js';
import type { BeforeToolHook, ToolHookContext } from '../tools/index.js';
import type { QueryCanUseTool, QueryPermissionResult } from './query-types.js';
import { boundedControlRequest } from './control-request.js';

/** More verdicts than calls can be in flight at once are stale (their calls ended early). */
const MAX_PENDING_VERDICTS = 256;

/** What {@link permissionBridge} needs: the option lists, the callback, and its bound. */
export interface PermissionBridgeInput {
  readonly canUseTool?: QueryCanUseTool;
  readonly allowedTools?: readonly string[];
  readonly disallowedTools?: readonly string[];
  /** The bound of one `canUseTool` answer, in ms (0: none). */
  readonly timeoutMs: number;
  /** Called when `canUseTool` denies with `interrupt: true`. */
  readonly interrupt: () => void;
}

/** A call parked by `defer`, as a continuing query asks `canUseTool` about it again. */
export interface DeferredCall {
  readonly toolName: string;
  readonly callId: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The agent-side halves of `canUseTool`: a `beforeTool` hook and the policy's approver. */
export interface PermissionBridge {
  readonly beforeTool: BeforeToolHook;
  readonly approve: Approver;
  /**
   * Asks `canUseTool` again about a call that parked (a query continuing a parked session):
   * the answer, checked as any other. Undefined without `canUseTool`.
   */
  askAgain(call: DeferredCall, signal: AbortSignal): Promise<QueryPermissionResult | undefined>;
  /**
   * The next `beforeTool` of `callId` does not ask: its decision was taken on its wait
   * (the continuing query asked, or another process decided).
   */
  skip(callId: string): void;
}

/**
 * Maps `canUseTool` onto Muster's pipeline. Muster's approver sees the final arguments and
 * cannot change them, while `canUseTool` may answer `updatedInput`; so the callback is asked
 * in a `beforeTool` hook (which may rewrite the arguments; they are validated again), and its
 * verdict is handed to `policy.approve` for that call id. The hook skips calls that
 * `disallowedTools` denies or `allowedTools` pre-approves, so `canUseTool` is asked exactly
 * when the reference SDKs ask it; the decision itself (and its `tool.decision` event, stage
 * `approval`) stays the policy's. A `defer` answer parks the call (the approver answers
 * `park`): the turn ends parked and a later query continues the session. Without
 * `canUseTool` the policy's `ask` has no approver and denies with `TOOL_APPROVAL_REQUIRED`.
 */
export function permissionBridge(input: PermissionBridgeInput): PermissionBridge {
  const denied = compilePatterns(input.disallowedTools, 'disallowedTools');
  const allowed = compilePatterns(input.allowedTools, 'allowedTools');
  const verdicts = new Map<string, QueryPermissionResult>();
  const skipped = new Set<string>();
  const canUseTool = input.canUseTool;

  const beforeTool: BeforeToolHook = async (call) => {
    if (!canUseTool) return undefined;
    // a parked call whose wait is decided: asking again would be a question nobody reads
    if (skipped.delete(call.callId)) return undefined;
    // built-in tools (context, tool_search, resource tools) are allowed unless denied, without
    // an approver: asking canUseTool about them would be a question whose answer is ignored
    if (call.info.source === 'builtin') return undefined;
    const subject = subjectOf(call);
    if (denied(subject) || allowed(subject)) return undefined;
    const verdict = await ask(canUseTool, call, call.signal, input.timeoutMs);
    verdicts.set(call.callId, verdict);
    // kept only until the approver reads it (a rewrite that fails validation never gets there)
    if (verdicts.size > MAX_PENDING_VERDICTS) verdicts.delete(verdicts.keys().next().value!);
    if (verdict.behavior === 'deny') {
      if (verdict.interrupt === true) input.interrupt();
      return undefined;
    }
    return verdict.behavior === 'allow' && verdict.updatedInput
      ? { arguments: verdict.updatedInput }
      : undefined;
  };

  const approve: Approver = (request) => {
    const verdict = request.callId !== undefined ? verdicts.get(request.callId) : undefined;
    if (request.callId !== undefined) verdicts.delete(request.callId);
    if (request.kind !== 'tool' || !verdict) return false;
    if (verdict.behavior === 'allow')
      return { decision: 'allow', reason: 'canUseTool allowed the call' };
    // defer: the run parks on an approval wait (SPEC 15.1), decided later from any process
    if (verdict.behavior === 'defer')
      return { decision: 'park', reason: verdict.message ?? 'canUseTool deferred the call' };
    return { decision: 'deny', reason: verdict.message || 'canUseTool denied the call' };
  };

  return {
    beforeTool,
    approve,
    askAgain: async (call, signal) =>
      canUseTool ? ask(canUseTool, call, signal, input.timeoutMs) : undefined,
    skip: (callId) => void skipped.add(callId),
  };
}

function subjectOf(call: ToolHookContext): PolicySubject {
  return {
    kind: 'tool',
    name: call.toolName,
    ...(call.info.server !== undefined ? { server: call.info.server } : {}),
    ...(call.info.originalName !== undefined ? { originalName: call.info.originalName } : {}),
  };
}

async function ask(
  canUseTool: QueryCanUseTool,
  call: DeferredCall,
  callSignal: AbortSignal,
  timeoutMs: number,
): Promise<QueryPermissionResult> {
  try {
    const answer = await boundedControlRequest('canUseTool', timeoutMs, callSignal, (signal) =>
      canUseTool(call.toolName, call.arguments, { signal, toolUseID: call.callId }),
    );
    return checkAnswer(answer);
  } catch (err) {
    // a callback that fails or times out denies the call (fail closed), and says why
    return { behavior: 'deny', message: err instanceof Error ? err.message : String(err) };
  }
}

function checkAnswer(answer: unknown): QueryPermissionResult {
  const a = answer as Partial<Record<string, unknown>> | undefined;
  if (a?.behavior === 'allow') {
    const updated = a.updatedInput;
    if (updated === undefined) return { behavior: 'allow' };
    if (updated !== null && typeof updated === 'object' && !Array.isArray(updated))
      return { behavior: 'allow', updatedInput: updated as Record<string, unknown> };
    return {
      behavior: 'deny',
      message: 'canUseTool answered an updatedInput that is not an object.',
    };
  }
  if (a?.behavior === 'defer')
    return {
      behavior: 'defer',
      ...(typeof a.message === 'string' && a.message !== '' ? { message: a.message } : {}),
    };
  if (a?.behavior === 'deny') {
    return {
      behavior: 'deny',
      message: typeof a.message === 'string' ? a.message : 'canUseTool denied the call',
      ...(a.interrupt === true ? { interrupt: true } : {}),
    };
  }
  return {
    behavior: 'deny',
    message:
      "canUseTool must answer { behavior: 'allow' | 'deny' | 'defer' }; the call was denied.",
  };
}
