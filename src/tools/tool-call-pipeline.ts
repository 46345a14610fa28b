import { isPromiseLike } from '../util/index.js';
import { ownArguments, readArguments } from './call-arguments.js';
import { authorizeCall, findVisibleTool } from './call-authorization.js';
import { refusedOutcome, toolCompletedEvent } from './call-events.js';
import { executeCall } from './call-execution.js';
import { executorFacts } from './executor-facts.js';
import { hookContext, runAfterHooks, runBeforeHooks } from './call-hooks.js';
import { checkResultLimit, storeCallResult } from './call-result.js';
import { pass } from './call-stage.js';
import type { Refusal } from './call-stage.js';
import { sentCallArguments, sentCallEntry } from './sent-call.js';
import type { ToolCallEnvironment, ToolCallOutcome, ToolCallRequest } from './tool-call-types.js';

/**
 * Runs one tool call through the whole pipeline, in the order of SPEC section 5: visibility,
 * validation, `beforeTool` hooks (re-validating rewrites), policy (deny, rules, allow,
 * default/approval), execution, `afterTool` hooks, result limits. Each stage returns its value
 * or a refusal; a refusal becomes an error result the model can read. Every call ends with one
 * `tool.completed` event. Only an abort of the run rejects. A call that became a task before
 * its run parked (a `task` wait holds it) was sent: it skips the stages that decide whether
 * to send it (visibility, validation, hooks, policy) and polls its task on (SPEC 15.3).
 */
export async function runToolCall(
  call: ToolCallRequest,
  env: ToolCallEnvironment,
): Promise<ToolCallOutcome> {
  const started = performance.now();
  // the time a person took to answer an approval is not the call's (decisions.md)
  let approvalMs = 0;
  const end = (outcome: ToolCallOutcome): ToolCallOutcome => {
    env.emit(toolCompletedEvent(env, call, outcome, performance.now() - started - approvalMs));
    return outcome;
  };
  const refused = (refusal: Refusal): ToolCallOutcome => end(refusedOutcome(call, refusal));

  // sent before the run parked or its process died: the decision to send it stands
  const sent = env.waits?.sentTask(call.callId);
  const found = sent ? sentCallEntry(call, env, sent) : findVisibleTool(call, env);
  if (!found.ok) return refused(found.refusal);
  const entry = found.value;
  // stages with nothing to do are skipped, not awaited: this is every call's hot path
  const hooks =
    env.beforeTool.length > 0 || env.afterTool.length > 0
      ? hookContext(entry, call, env)
      : undefined;

  const reading = sent
    ? sentCallArguments(call, env, sent)
    : readArguments(
        entry,
        call.argumentsText,
        { maxBytes: env.maxToolArgumentBytes, maxDepth: env.maxToolArgumentDepth },
        env.signal,
        call.arguments,
      );
  // a stage that answered at once is not awaited: each `await` is a turn of the microtask
  // queue inside the call's `durationMs`
  const checked = isPromiseLike(reading) ? await reading : reading;
  if (!checked.ok) return refused(checked.refusal);
  // the parsed value is the transcript's (frozen): hooks and executors that may change their
  // arguments get their own copy of what is frozen
  const read =
    !sent && (hooks || executorFacts(entry.executor).readsInputOnly !== true)
      ? { ok: true as const, value: ownArguments(checked.value) }
      : checked;
  const args =
    !sent && hooks && env.beforeTool.length > 0
      ? await runBeforeHooks(entry, read.value, hooks, env)
      : read;
  if (!args.ok) return refused(args.refusal);

  // a sent call keeps the approval that let it be sent (recorded with its result)
  const authorizing = sent
    ? pass(sent.approvedBy ? { decidedBy: sent.approvedBy } : undefined)
    : authorizeCall(entry, call, args.value, env, (ms) => (approvalMs = ms));
  const authorized = isPromiseLike(authorizing) ? await authorizing : authorizing;
  if (!authorized.ok) return refused(authorized.refusal);
  const verdict = authorized.value;
  // a parked call has no result yet: it completes when the run resumes
  if (verdict && 'parked' in verdict && verdict.parked) return verdict;
  if (verdict && 'callId' in verdict) return end(verdict);
  const executed = await executeCall(entry, args.value, call, env, verdict?.decidedBy);
  // parked on a server's input requests: it completes when the run resumes
  if (executed.ok === 'parked')
    return {
      callId: call.callId,
      toolName: entry.name,
      result: { content: 'Waiting for input.' },
      executed: true,
      parked: verdict?.decidedBy
        ? { ...executed.parked, approvedBy: verdict.decidedBy }
        : executed.parked,
    };
  if (!executed.ok) return refused(executed.refusal);
  const after =
    hooks && env.afterTool.length > 0
      ? await runAfterHooks(entry, args.value, executed.value, hooks, env)
      : executed;
  if (!after.ok) return refused(after.refusal);
  const limited = checkResultLimit(entry, after.value, env);
  if (!limited.ok) return refused(limited.refusal);
  const stored = env.finishResult
    ? storeCallResult(env.finishResult, entry, limited.value, call)
    : limited;
  const result = isPromiseLike(stored) ? await stored : stored;
  if (!result.ok) return refused(result.refusal);
  const decidedBy = verdict?.decidedBy ?? executed.decidedBy;
  return end({
    callId: call.callId,
    toolName: entry.name,
    result: result.value,
    executed: true,
    ...(decidedBy ? { decidedBy } : {}),
  });
}
