import { MusterError, isAgentClosed } from '../errors/index.js';
import type { ToolErrorCode } from '../errors/index.js';
import { raceAbort } from '../util/index.js';
import type { CallArguments } from './call-arguments.js';
import { toolCalledEvent, toolProgressEvent } from './call-events.js';
import { describeFailure, pass, refuse } from './call-stage.js';
import type { StageResult } from './call-stage.js';
import type { CatalogEntry } from './tool-catalog.js';
import type {
  DecidedBy,
  ParkedCall,
  ToolCallEnvironment,
  ToolCallRequest,
} from './tool-call-types.js';
import { CallParkSignal } from './call-parking.js';
import type { CallParking, ParkedTask } from './call-parking.js';
import { callFingerprint } from './call-fingerprint.js';
import { normalizeToolReturn } from './tool-result.js';
import type { NormalizedToolResult } from './tool-result.js';
import type { ToolProgress } from './tool-types.js';
import { executorFacts } from './executor-facts.js';
import { RunScope } from './run-scope.js';
import type { ToolEvent } from './tool-events.js';

/** Scopes of pipelines used outside an agent's run, one per environment. */
const detachedScopes = new WeakMap<ToolCallEnvironment, RunScope>();

/** The scope of a pipeline used outside an agent's run: events go to `env.emit`. */
function detachedScope(env: ToolCallEnvironment): RunScope {
  let scope = detachedScopes.get(env);
  if (scope) return scope;
  scope = new RunScope({
    sessionId: env.sessionId,
    runId: env.runId,
    signal: env.signal,
    limits: env,
    policy: env.policy,
    sink: {
      emit: (event) => env.emit(event as ToolEvent),
      forward: (event) => env.emit(event as ToolEvent),
      authorize: (request, signal) => env.policy.authorize(request, { signal }),
      countOwnUsage: () => undefined,
    },
  });
  detachedScopes.set(env, scope);
  return scope;
}

/** How the execution stage ended: a result (or refusal), or the call parked on input. */
export type ExecutionResult =
  | (StageResult<NormalizedToolResult> & { readonly decidedBy?: DecidedBy })
  | { readonly ok: 'parked'; readonly parked: ParkedCall };

/**
 * Emits `tool.called` and runs the tool through its executor, forwarding progress as
 * `tool.progress` events, and normalizes what it returned. Every failure is a refusal with
 * `executed: true`: `TOOL_OUTCOME_UNKNOWN` when the run was aborted (the call may or may not
 * have taken effect, and is never retried), the code of a tool-level `MusterError`, or
 * `TOOL_EXECUTION_FAILED`. `approvedBy`: the decided approval wait that let the call run,
 * kept with the handle of a task the call becomes.
 */
export async function executeCall(
  entry: CatalogEntry,
  args: CallArguments,
  call: ToolCallRequest,
  env: ToolCallEnvironment,
  approvedBy?: DecidedBy,
): Promise<ExecutionResult> {
  env.emit(toolCalledEvent(env, call, entry, args));
  // parking facts only where a run keeps waits; the fingerprint is hashed only for a call
  // that has input waits, or when it parks
  let fingerprint: string | undefined;
  const fingerprintOf = () => (fingerprint ??= callFingerprint(entry, args, env.policy.version));
  const waits = env.waits;
  const parking: CallParking | undefined = waits
    ? (() => {
        const resumption = waits.inputFor(call.callId, fingerprintOf);
        const childSessionId = waits.childFor(call.callId, fingerprintOf);
        const task = waits.taskFor(call.callId);
        return {
          canPark: waits.canPark,
          store: waits.store,
          ...(resumption ? { resumption } : {}),
          ...(childSessionId !== undefined ? { childSessionId } : {}),
          ...(task ? { task } : {}),
          ...(waits.canPark
            ? {
                holdTask: (held: ParkedTask) =>
                  waits.holdTask(call.callId, entry.name, fingerprintOf(), held, approvedBy),
              }
            : {}),
        };
      })()
    : undefined;
  const ctx = (env.scope ?? detachedScope(env)).call({
    callId: call.callId,
    iteration: call.iteration,
    progress: (p: ToolProgress) => env.emit(toolProgressEvent(env, call, entry, p)),
    traceContext: env.traceContext,
    parking,
  });
  const decidedBy = parking?.resumption?.decidedBy;
  try {
    // called at once (a synchronous throw lands in the catch below), and raced against the
    // signal unless the executor is one of Muster's own that settles on abort by itself
    const running = Promise.resolve(entry.executor.execute(entry.name, args, ctx));
    const returned = await (executorFacts(entry.executor).settlesOnAbort === true
      ? running
      : raceAbort(running, env.signal, `Tool '${entry.name}'`));
    const done = pass(normalizeToolReturn(returned, entry.name));
    return decidedBy ? { ...done, decidedBy } : done;
  } catch (err) {
    // a task parks on an agent's close too (a close never cancels it: SPEC 15.3)
    if (
      err instanceof CallParkSignal &&
      parking?.canPark &&
      (!env.signal.aborted || (err.reason.task !== undefined && isAgentClosed(env.signal.reason)))
    ) {
      const { input, child, task } = err.reason;
      return {
        ok: 'parked',
        parked: {
          fingerprint: fingerprintOf(),
          arguments: args,
          ...(entry.info.server !== undefined ? { server: entry.info.server } : {}),
          ...(task ? { task, ...(input ? { input } : {}) } : input ? { input } : { child }),
        },
      };
    }
    if (env.signal.aborted) {
      // an executor's own unknown outcome says more (a call that became a task names it)
      if (MusterError.isInstance(err) && err.code === 'TOOL_OUTCOME_UNKNOWN')
        return refuse('TOOL_OUTCOME_UNKNOWN', err.message, true);
      return refuse(
        'TOOL_OUTCOME_UNKNOWN',
        `The call to '${entry.name}' was interrupted by an abort; it may or may not have taken effect. It was not retried.`,
        true,
      );
    }
    if (MusterError.isInstance(err) && err.code.startsWith('TOOL_')) {
      // an executor that proved the call never reached its target says so: it did not run
      const ran = err.details.reason !== 'not-sent';
      return refuse(err.code as ToolErrorCode, err.message, ran);
    }
    return refuse('TOOL_EXECUTION_FAILED', `'${entry.name}' failed: ${describeFailure(err)}`, true);
  } finally {
    // the call has ended: what the executor reports through a scope it kept is dropped
    ctx.close();
  }
}
