import type { ModelClient } from '../model/index.js';
import type { RunRequest } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import { resolveLimits } from './limits.js';
import type { Limits } from './limits.js';
import { runModel } from './loop-context.js';
import { resolveOutput } from './output/index.js';
import type { OutputSpec } from './output/index.js';
import type { RunObserver } from './run-observer.js';
import { validateRunRequest } from './validate-options.js';

/** What a run settled before touching the session: its request, limits and model. */
export interface RunPlan {
  readonly request: RunRequest;
  readonly limits: Limits;
  readonly model: ModelClient;
  readonly modelName: string;
  /** The typed final answer the run asks for. */
  readonly output: OutputSpec | undefined;
}

/** Which run is planned (an `AgentRunIds`). */
export interface PlannedRun {
  readonly sessionId: string;
  readonly runId: string;
  /** True for `resume()`. */
  readonly resume: boolean;
  /** The tool this run answers (`asTool`), naming it in traces when the agent has no name. */
  readonly toolName?: string | undefined;
  /** For a resume, the session id `resume()` was given. */
  readonly named?: unknown;
}

/**
 * Validates a run's request, settles its limits and its model, and starts its observer (its
 * spans) when the agent traces; nothing of the session is touched yet.
 */
export async function planRun(
  runtime: AgentScope,
  raw: RunRequest,
  ids: PlannedRun,
): Promise<{ plan: RunPlan; observer?: RunObserver }> {
  const { sessionId, runId, resume, toolName } = ids;
  const request = validateRunRequest(raw, resume ? { sessionId: ids.named } : undefined);
  const limits = resolveLimits(runtime.limits, request.limits, 'run limits');
  const { model, modelName } = runModel(runtime, request);
  const output =
    request.output === undefined ? undefined : await resolveOutput(request.output, 'output');
  const plan = { request, limits, model, modelName, output };
  // decided synchronously: an untraced run builds nothing and awaits nothing here
  if (!runtime.tracing?.traces()) return { plan };
  const observer = await runtime.tracing.startRun(
    {
      sessionId,
      runId,
      modelName,
      provider: model.provider,
      agentName: runtime.agentName ?? toolName,
      input: resume ? undefined : request.input,
      principal: request.principal,
    },
    request.traceContext,
  );
  return { plan, observer };
}
