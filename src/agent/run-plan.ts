import { MusterError } from '../errors/index.js';
import type { ModelClient, Usage } from '../model/index.js';
import type { RunRequest } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import { resolveLimits } from './limits.js';
import type { Limits } from './limits.js';
import { runModel } from './loop-context.js';
import { resolveOutput } from './output/index.js';
import type { OutputSpec } from './output/index.js';
import type { RunObserver } from './run-observer.js';
import { validateRunRequest } from './validate-options.js';
import { priceOf, pricer } from './pricing.js';
import { budgetOfCall } from './run-budget.js';
import type { RunBudget } from './run-budget.js';
import type { ToolExecutionContext } from '../tools/index.js';

/** What a run settled before touching the session: its request, limits and model. */
export interface RunPlan {
  readonly request: RunRequest;
  readonly limits: Limits;
  readonly model: ModelClient;
  readonly modelName: string;
  /** The typed final answer the run asks for. */
  readonly output: OutputSpec | undefined;
  /** Prices the model's usage, when `pricing` has the model. */
  readonly price: ((usage: Usage) => Usage) | undefined;
  /** The budget of the run that delegated to this one (`asTool`), when it has one. */
  readonly callerBudget: RunBudget | undefined;
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
  /** The tool call of the run that delegated to this one (`asTool`). */
  readonly caller?: ToolExecutionContext | undefined;
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
  const price = pricer(runtime.options.pricing, modelName);
  const callerBudget = budgetOfCall(ids.caller);
  const countsCost = limits.maxCostUsd !== undefined || costCounted(callerBudget);
  if (!price && countsCost) throw unpricedError(modelName, limits.maxCostUsd !== undefined);
  // the sampling the run's servers ask for is answered, and priced, by the root's model
  const sampling = runtime.samplingModelName;
  if (countsCost && sampling !== undefined && !priceOf(runtime.options.pricing, sampling))
    throw unpricedSamplingError(sampling);
  const plan = { request, limits, model, modelName, output, price, callerBudget };
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

/** True when `budget`, or a budget it counts into, limits dollars. */
function costCounted(budget: RunBudget | undefined): boolean {
  return budget !== undefined && budget.countsCost;
}

/** A run that counts dollars, whose servers' sampling a model without a price would answer. */
function unpricedSamplingError(modelName: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `This run counts dollars (limits.maxCostUsd), and the sampling its MCP servers ask for is answered by the agent's model '${modelName}' (mcp.handlers.sampling: 'agent'), which the agent's pricing has no price for: add createAgent({ pricing: { '${modelName}': { inputPerMTok, outputPerMTok } } }) (US dollars per million tokens), answer sampling with a function of yours, or drop maxCostUsd.`,
    { details: { option: 'pricing', modelName } },
  );
}

/** `limits.maxCostUsd` (the run's own, or a delegating run's) for a model without a price. */
export function unpricedError(modelName: string, own: boolean): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `${own ? 'limits.maxCostUsd is set' : 'The run that delegated to this one has limits.maxCostUsd'}, but the agent's pricing has no price for the model '${modelName}': add createAgent({ pricing: { '${modelName}': { inputPerMTok, outputPerMTok } } }) (US dollars per million tokens), or drop maxCostUsd.`,
    { details: { option: 'pricing', modelName } },
  );
}
