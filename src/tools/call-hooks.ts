import type { AuthorizationDecision } from '../policy/index.js';
import { jsonText } from '../util/index.js';
import { checkArguments, parseArguments } from './call-arguments.js';
import type { CallArguments } from './call-arguments.js';
import { toolDecisionEvent } from './call-events.js';
import { describeFailure, pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type { ToolCallEnvironment, ToolCallRequest } from './tool-call-types.js';
import type { ToolHookContext } from './tool-hooks.js';
import { normalizeToolReturn } from './tool-result.js';
import type { ToolResult } from './tool-types.js';

/** What the hooks of one call are told about it. */
export function hookContext(
  entry: CatalogEntry,
  call: ToolCallRequest,
  env: ToolCallEnvironment,
): ToolHookContext {
  return {
    toolName: entry.name,
    callId: call.callId,
    sessionId: env.sessionId,
    runId: env.runId,
    iteration: call.iteration,
    info: entry.info,
    ...(entry.annotations ? { annotations: entry.annotations } : {}),
    signal: env.signal,
  };
}

/**
 * Runs the `beforeTool` hooks in order. A hook may deny (or throw, which denies) — recorded as a
 * policy decision of stage `hook` — or rewrite the arguments, which are then parsed and
 * validated again. Resolves with the arguments that will run; rejects only on abort.
 */
export async function runBeforeHooks(
  entry: CatalogEntry,
  initial: CallArguments,
  ctx: ToolHookContext,
  env: ToolCallEnvironment,
): Promise<StageResult<CallArguments>> {
  let args = initial;
  for (const hook of env.beforeTool) {
    let answer;
    try {
      answer = await hook({ ...ctx, arguments: args });
    } catch (err) {
      if (env.signal.aborted) throw err;
      return denyByHook(env, ctx, `a beforeTool hook failed: ${describeFailure(err)}`);
    }
    if (!answer) continue;
    if ('decision' in answer && answer.decision === 'deny')
      return denyByHook(env, ctx, answer.reason ?? 'denied by a beforeTool hook');
    if ('arguments' in answer) {
      const text = safeStringify(answer.arguments);
      if (text === undefined)
        return denyByHook(
          env,
          ctx,
          'a beforeTool hook returned arguments that are not JSON-serializable',
        );
      const rewritten = parseArguments(text, {
        maxBytes: env.maxToolArgumentBytes,
        maxDepth: env.maxToolArgumentDepth,
      });
      if (!rewritten.ok) return rewritten;
      const checked = await checkArguments(entry, rewritten.value, env.signal);
      if (!checked.ok) return checked;
      args = checked.value;
    }
  }
  return pass(args);
}

/**
 * Runs the `afterTool` hooks in order; each may replace the result. A hook that throws withholds
 * the result (`TOOL_EXECUTION_FAILED`, or `TOOL_OUTCOME_UNKNOWN` on abort), so nothing
 * unredacted leaks.
 */
export async function runAfterHooks(
  entry: CatalogEntry,
  args: CallArguments,
  initial: ToolResult,
  ctx: ToolHookContext,
  env: ToolCallEnvironment,
): Promise<StageResult<ToolResult>> {
  let result = initial;
  for (const hook of env.afterTool) {
    try {
      const answer = await hook({ ...ctx, arguments: args, result });
      if (answer && 'result' in answer) result = normalizeToolReturn(answer.result, entry.name);
    } catch (err) {
      if (env.signal.aborted)
        return refuse(
          'TOOL_OUTCOME_UNKNOWN',
          `The call to '${entry.name}' was interrupted by an abort after it ran.`,
          true,
        );
      return refuse(
        'TOOL_EXECUTION_FAILED',
        `An afterTool hook failed, so the result of '${entry.name}' was withheld: ${describeFailure(err)}`,
        true,
      );
    }
  }
  return pass(result);
}

/** A denial by a `beforeTool` hook: told to the policy observer, emitted, and refused. */
function denyByHook(env: ToolCallEnvironment, ctx: ToolHookContext, reason: string) {
  const decision: AuthorizationDecision = {
    decision: 'deny',
    stage: 'hook',
    reason,
    code: 'TOOL_DENIED',
  };
  env.policy.notify(
    {
      kind: 'tool',
      capability: ctx.toolName,
      toolName: ctx.toolName,
      source: ctx.info.source,
      ...(ctx.info.server !== undefined ? { server: ctx.info.server } : {}),
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      ...(env.scope?.principal !== undefined ? { principal: env.scope.principal } : {}),
      callId: ctx.callId,
    },
    decision,
    env.onObserverError,
  );
  env.emit(
    toolDecisionEvent(env, { callId: ctx.callId, name: ctx.toolName }, decision, env.policy.dryRun),
  );
  return refuse<CallArguments>(
    'TOOL_DENIED',
    `The call was denied (${reason}). Do not retry it; choose another approach or ask the user.`,
  );
}

function safeStringify(value: unknown): string | undefined {
  try {
    // without recursion: arguments of any depth get their text (and the depth limit's refusal)
    return jsonText(value);
  } catch {
    return undefined;
  }
}
