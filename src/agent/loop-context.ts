import { MusterError } from '../errors/index.js';
import type { ModelClient, ModelMessage } from '../model/index.js';
import type { SessionStore } from '../session/index.js';
import type { RunScope } from '../tools/index.js';
import type { RunRequest } from './agent-options.js';
import type { AgentScope } from './agent-scope.js';
import type { AgentEvent } from './events.js';
import type { Limits } from './limits.js';
import { preloadMcpContext } from './mcp-context.js';
import type { RunContext } from './run-loop.js';
import type { RunTools } from './run-setup.js';
import type { RunObserver } from './run-observer.js';
import type { OutputSpec } from './output/index.js';
import type { RunWaits } from './run-waits.js';
import type { ToolCallRequest } from '../tools/index.js';

/** The model a run uses and its name: the run's name, else the agent's, else the model's. */
export function runModel(
  runtime: AgentScope,
  request: RunRequest,
): { readonly model: ModelClient; readonly modelName: string } {
  const model = runtime.options.model;
  if (!model)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'This agent has no model: pass createAgent({ model }) to run it.',
    );
  const modelName = request.modelName ?? runtime.options.modelName ?? model.defaultModelName;
  if (!modelName)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'No model name: set createAgent({ modelName }) or run({ modelName }).',
    );
  return { model, modelName };
}

/** What one run is, for building its contexts. */
export interface RunIdentity {
  readonly sessionId: string;
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly emit: (event: AgentEvent) => void;
}

/** The parts of a run's loop context fixed before the loop starts. */
export interface LoopRun extends RunIdentity {
  readonly model: ModelClient;
  readonly modelName: string;
  readonly limits: Limits;
  readonly tools: RunTools;
  readonly store: SessionStore;
  /** Model turns a resumed run's session already took. */
  readonly iterationsDone?: number;
  /** The run's scope, from which each tool call's scope is derived. */
  readonly scope: RunScope;
  /** What watches the run (its spans, when it is traced); `UNOBSERVED` otherwise. */
  readonly observer: RunObserver;
  /** The typed final answer the run asks for, settled at run start. */
  readonly output?: OutputSpec | undefined;
  /** The run's waits (SPEC 15.1). */
  readonly waits?: RunWaits | undefined;
  /** Calls that parked, run again before the next turn (a resumed run). */
  readonly pendingCalls?: readonly ToolCallRequest[] | undefined;
  /** The calls among `pendingCalls` sent again after a crash (`mcp.replay`, SPEC 15.5). */
  readonly replaying?: ReadonlySet<string> | undefined;
  /** The call starts `pendingCalls` already recorded (`SessionRun.recordedStarts`). */
  readonly recordedStarts?: ReadonlySet<string> | undefined;
  /** Takes steering at each step boundary (SPEC 15.2). */
  readonly steer?: ((transcript: ModelMessage[]) => Promise<void> | undefined) | undefined;
  /** Holds an event for the commit made next (see `RunContext.stage`). */
  readonly stage?: RunContext['stage'];
  /** The run's budget (SPEC 15.4), when it or a run that delegated to it has one. */
  readonly budget?: RunContext['budget'];
  /** The signal of the run's tool calls, when it differs from the run's (a budget). */
  readonly callSignal?: AbortSignal | undefined;
  /** Prices the usage of the run's model turns, when the model has a price. */
  readonly price?: RunContext['price'];
}

/**
 * The loop context of one run: the agent's options with the run's overrides, and the run's
 * `mcpContext` (else the agent's) preloaded as the preamble of every request: sent before
 * the newest user message, never stored.
 */
export async function loopContext(
  runtime: AgentScope,
  request: RunRequest,
  run: LoopRun,
): Promise<RunContext> {
  const options = runtime.options;
  const mcpContext = request.mcpContext ?? options.mcpContext;
  const preloaded = mcpContext && (await preloadMcpContext(runtime.mcp, mcpContext, run.signal));
  const ctx: Mutable<RunContext> = {
    sessionId: run.sessionId,
    runId: run.runId,
    model: run.model,
    modelName: run.modelName,
    system: request.system ?? options.system,
    stream: request.stream ?? true,
    reasoningEffort: request.reasoningEffort,
    modelRetry: request.modelRetry ?? options.modelRetry,
    promptCacheKey: request.promptCacheKey ?? options.promptCacheKey,
    limits: run.limits,
    context: runtime.context,
    catalog: run.tools.catalog,
    policy: runtime.policy,
    beforeTool: toList(options.hooks?.beforeTool),
    afterTool: toList(options.hooks?.afterTool),
    store: run.store,
    signal: run.signal,
    emit: run.emit,
    scope: run.scope,
    onObserverError: (err) => runtime.reportError(err),
    observer: run.observer,
  };
  // set one by one, not spread: this is built for every run
  if (preloaded) ctx.preamble = [preloaded];
  if (run.iterationsDone !== undefined) ctx.iterationsDone = run.iterationsDone;
  if (run.tools.finishResult) ctx.finishResult = run.tools.finishResult;
  if (run.tools.view) ctx.toolView = run.tools.view;
  if (run.waits) ctx.waits = run.waits;
  if (run.pendingCalls) ctx.pendingCalls = run.pendingCalls;
  if (run.replaying) ctx.replaying = run.replaying;
  if (run.recordedStarts) ctx.recordedStarts = run.recordedStarts;
  if (run.steer) ctx.steer = run.steer;
  if (run.stage) ctx.stage = run.stage;
  if (run.budget) ctx.budget = run.budget;
  if (run.callSignal) ctx.callSignal = run.callSignal;
  if (run.price) ctx.price = run.price;
  if (run.output) {
    ctx.output = run.output;
    ctx.outputRepairs = request.outputRepairs ?? options.outputRepairs ?? 1;
  }
  return ctx;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const NO_HOOKS: readonly never[] = Object.freeze([]);

function toList<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return NO_HOOKS;
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}
