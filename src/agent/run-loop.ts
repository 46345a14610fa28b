import { MusterError, abortedError } from '../errors/index.js';
import type {
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelToolDefinition,
  ReasoningEffort,
  Usage,
} from '../model/index.js';
import { addUsage, ZERO_USAGE } from '../model/index.js';
import { deepFreeze } from '../util/index.js';
import { eventBase, notRunOutcome, toolCompletedEvent } from '../tools/index.js';
import type { ContextManager } from '../context/index.js';
import type { CallPolicy } from '../policy/index.js';
import type { SessionStore } from '../session/index.js';
import type { RunScope } from '../tools/index.js';
import type {
  AfterToolHook,
  BeforeToolHook,
  ToolCatalog,
  ToolCallEnvironment,
  ToolCallOutcome,
  ToolEvent,
} from '../tools/index.js';
import type { ModelRetryOptions } from './agent-options.js';
import type { AgentEvent } from './events.js';
import type { Limits } from './limits.js';
import { takeModelTurn } from './model-turn.js';
import type { ModelTurn, TurnAttempts } from './model-turn.js';
import { firstBatch, runTurnCalls } from './tool-scheduler.js';
import type { RunObserver } from './run-observer.js';
import { turnTools } from './run-tool-view.js';
import type { RunToolView } from './run-tool-view.js';
import {
  UNCHANGED,
  commitMessages as commit,
  skipRecorded,
  stepCommits,
  toolMessage,
} from './step-commits.js';
import { replayCommits, replayMark, replayedEvent } from './call-replay.js';
import { outputInvalidError, repairInstruction } from './output/index.js';
import type { OutputSpec } from './output/index.js';
import type { RunWaits } from './run-waits.js';
import type { Wait } from '../session/index.js';
import type { ToolCallRequest } from '../tools/index.js';
import { budgetExhaustedError, budgetRefusal } from './run-budget.js';
import type { BudgetExhaustion, RunBudget } from './run-budget.js';
import type { RequestedCall } from './model-turn.js';

/** Everything one run needs, fixed when it starts. */
export interface RunContext {
  readonly sessionId: string;
  readonly runId: string;
  readonly model: ModelClient;
  readonly modelName: string;
  readonly system: string | undefined;
  /** Sent before the newest user message of every request, never stored (preloaded context). */
  readonly preamble?: readonly ModelMessage[] | undefined;
  readonly stream: boolean;
  readonly reasoningEffort: ReasoningEffort | undefined;
  /** Retries of model turns that failed before streaming anything; off when absent. */
  readonly modelRetry?: ModelRetryOptions | undefined;
  /** Sent to providers with a prompt cache key (OpenAI `prompt_cache_key`). */
  readonly promptCacheKey?: string | undefined;
  readonly limits: Limits;
  /** Shapes each request's messages to the context limits (the transcript is not changed). */
  readonly context: ContextManager;
  readonly catalog: ToolCatalog;
  readonly policy: CallPolicy;
  readonly beforeTool: readonly BeforeToolHook[];
  readonly afterTool: readonly AfterToolHook[];
  readonly store: SessionStore;
  readonly signal: AbortSignal;
  readonly emit: (event: AgentEvent) => void;
  readonly onObserverError: (err: unknown) => void;
  /** Model turns already taken by the run this one continues (`resume`); 0 when absent. */
  readonly iterationsDone?: number;
  /** Archives large results (see ToolCallEnvironment.finishResult). */
  readonly finishResult?: ToolCallEnvironment['finishResult'];
  /** The run's scope: each tool call's scope is derived from it. */
  readonly scope: RunScope;
  /** What watches the run (its spans when it is traced, SPEC 12b); `UNOBSERVED` otherwise. */
  readonly observer: RunObserver;
  /** What the model is shown of the catalog turn by turn (tool search); all visible tools when absent. */
  readonly toolView?: RunToolView | undefined;
  /** The typed final answer the run asks for (SPEC 15.4); free text when absent. */
  readonly output?: OutputSpec | undefined;
  /** Repair turns an invalid typed answer gets (with `output`). */
  readonly outputRepairs?: number;
  /** The run's waits (SPEC 15.1): decisions a resumed run applies, and the calls that park. */
  readonly waits?: RunWaits | undefined;
  /** Calls of the last turn that parked, run again (with their decisions) before the next turn. */
  readonly pendingCalls?: readonly ToolCallRequest[] | undefined;
  /**
   * The calls among `pendingCalls` that were in flight when the previous run died and are sent
   * again (`mcp.replay: 'idempotent'`, SPEC 15.5): each start records the replay, and one the
   * pipeline does not send stays `TOOL_OUTCOME_UNKNOWN`.
   */
  readonly replaying?: ReadonlySet<string> | undefined;
  /**
   * The call starts `pendingCalls` already recorded (a call's id, or its replay mark): those
   * are not appended again when the call runs again (a task polled on each resume).
   */
  readonly recordedStarts?: ReadonlySet<string> | undefined;
  /** Takes steering messages (SPEC 15.2) into the transcript, at each step boundary. */
  readonly steer?: ((transcript: ModelMessage[]) => Promise<void> | undefined) | undefined;
  /**
   * Holds an event for the commit the run makes next, at once (SPEC 15.2): it is published once
   * that commit succeeded. Returns what to call when the commit is done (`landed`, which also
   * reports it to the run's usage and observer) or failed (`forget`), or undefined when it could
   * not be held (no log): then `emit` it after the commit.
   */
  readonly stage?: ((event: AgentEvent) => StagedEvent | undefined) | undefined;
  /**
   * The run's budget (SPEC 15.4), when it or a run that delegated to it has one: checked after
   * each model turn and before each tool call.
   */
  readonly budget?: RunBudget | undefined;
  /**
   * The signal of the run's tool calls: the run's, also aborted when its budget runs out (the
   * run itself may still take its last turn). The run's signal when absent.
   */
  readonly callSignal?: AbortSignal | undefined;
  /** Prices the usage of the run's model turns (`usage.costUsd`), when its model has a price. */
  readonly price?: ((usage: Usage) => Usage) | undefined;
}

/** An event held for the commit the run makes next (see `RunContext.stage`). */
export interface StagedEvent {
  /** The commit succeeded: the event counts for the run's usage and observer. */
  landed(): void;
  /** The commit failed: the event is forgotten, never published. */
  forget(): void;
}

/**
 * Thrown by the loop when a turn's calls parked: their waits are stored and the rest of the
 * turn committed. Not a failure: the run ends `parked`.
 */
export class RunParked {
  constructor(readonly waits: readonly Wait[]) {}
}

/** How a run ended successfully. */
export interface RunResult {
  readonly content: string;
  /** The validated typed answer, when the run asked for `output`. */
  readonly output?: unknown;
  readonly iterations: number;
  readonly usage: Usage;
}

/**
 * The model/tool loop: model turn -> tool calls (read-only ones concurrently) -> results ->
 * next turn, until a turn has no tool calls. Each step is committed to the store before the
 * next begins. `transcript` is the conversation so far, including the new user message; the
 * loop appends to it. Throws a `MusterError` when the run fails.
 */
export async function runLoop(ctx: RunContext, transcript: ModelMessage[]): Promise<RunResult> {
  const tools = turnTools(ctx.catalog, ctx.toolView, transcript);
  const onDelta = (kind: 'text' | 'reasoning', content: string) => {
    if (ctx.stream) ctx.emit({ type: 'model.delta', ...eventBase(ctx), kind, content });
  };
  // a budget that runs out (the clock) stops a model request in flight; not the last turn's
  const turnSignal = ctx.callSignal ?? ctx.signal;
  // one closure per run: the observer calls it for every turn
  const take = (attempts: TurnAttempts | undefined) =>
    nextTurn(ctx, transcript, tools, onDelta, attempts, turnSignal);
  let usage = ZERO_USAGE;
  let repairs = 0;
  const budget = ctx.budget;
  // the calls a resumed run runs again were counted when they first started
  if (ctx.pendingCalls && ctx.pendingCalls.length > 0)
    await runCalls(ctx, transcript, ctx.pendingCalls, ctx.replaying, false, ctx.recordedStarts);
  for (let iteration = (ctx.iterationsDone ?? 0) + 1; ; iteration++) {
    // no model request starts once the budget is spent, but a last one without tools
    const spent = budget?.exhaustion;
    if (spent) return lastTurn(ctx, transcript, spent, iteration, usage, onDelta);
    if (iteration > ctx.limits.maxIterations) {
      throw new MusterError(
        'AGENT_LIMIT_EXCEEDED',
        `The run used its ${ctx.limits.maxIterations} model turns (limits.maxIterations) without a final answer: raise the limit or narrow the task.`,
        { details: { limit: 'maxIterations', value: ctx.limits.maxIterations } },
      );
    }
    // nothing to await unless steering may be waiting
    const steering = ctx.steer?.(transcript);
    if (steering) await steering;
    const turn = await ctx.observer.modelTurn(iteration, ctx.stream, take);
    const stopped = turn.error && !ctx.signal.aborted ? budget?.exhaustion : undefined;
    if (stopped) {
      usage = addUsage(usage, await stoppedTurn(ctx, transcript, iteration, turn, stopped));
      continue;
    }
    const starts = startsRidingTurn(ctx, turn);
    usage = addUsage(usage, await commitTurn(ctx, transcript, iteration, turn, starts));
    if (turn.calls.length === 0) {
      if (!ctx.output) return { content: turn.text, iterations: iteration, usage };
      const reading = await ctx.output.read(turn.text);
      if (reading.ok)
        return { content: turn.text, output: reading.value, iterations: iteration, usage };
      if (repairs >= (ctx.outputRepairs ?? 0)) throw outputInvalidError(reading, repairs);
      repairs++;
      const note = repairInstruction(ctx.output.format.name, reading);
      await commit(ctx, transcript, [deepFreeze(userText(note))], {});
      continue;
    }

    // the turn that spent the budget completed: none of its tools runs (a budget its first
    // calls spent as they were admitted refuses only the calls after them)
    const stop = budget?.exhaustion;
    if (stop && stop !== starts?.spent) {
      await refuseCalls(ctx, transcript, turn.calls, budgetRefusal(stop));
      continue;
    }

    if (turn.calls.length > ctx.limits.maxToolCallsPerTurn) {
      const refused = turn.calls.map((c) =>
        notRunOutcome(
          c,
          `Error [AGENT_LIMIT_EXCEEDED]: the turn asked for ${turn.calls.length} tool calls, over the limit of ${ctx.limits.maxToolCallsPerTurn}; none were run.`,
        ),
      );
      await commit(ctx, transcript, refused.map(toolMessage), {});
      for (const [i, r] of refused.entries())
        ctx.emit(toolCompletedEvent(ctx, turn.calls[i]!, r, 0));
      throw new MusterError(
        'AGENT_LIMIT_EXCEEDED',
        `The model asked for ${turn.calls.length} tool calls in one turn, over limits.maxToolCallsPerTurn (${ctx.limits.maxToolCallsPerTurn}): raise the limit or ask for fewer calls.`,
        {
          details: {
            limit: 'maxToolCallsPerTurn',
            value: ctx.limits.maxToolCallsPerTurn,
            requested: turn.calls.length,
          },
        },
      );
    }

    await runCalls(
      ctx,
      transcript,
      // every key written out: on Node 20 the copy a spread makes gets a hidden class outside
      // V8's transition tree, so each added key cost a new class per call (docs/performance.md)
      turn.calls.map((c) => ({
        callId: c.callId,
        name: c.name,
        argumentsText: c.argumentsText,
        arguments: c.arguments,
        iteration,
      })),
      undefined,
      true,
      // their starts rode the turn's commit: not written again, nor admitted again
      starts?.committed && new Set(starts.committed),
      starts?.admissions,
    );
    if (ctx.signal.aborted) throw abortError(ctx);
  }
}

/**
 * Commits a turn's message with its usage (priced when the model has a price) and counts the
 * usage toward the budget; then the turn's `model.completed` event goes out (it rides the
 * commit), and after it what the turn did to the budget. A turn that failed is thrown once
 * what it produced is committed. Returns the turn's usage.
 */
async function commitTurn(
  ctx: RunContext,
  transcript: ModelMessage[],
  iteration: number,
  turn: ModelTurn,
  starts?: TurnStarts,
): Promise<Usage | undefined> {
  const usage = turn.usage && ctx.price ? ctx.price(turn.usage) : turn.usage;
  ctx.budget?.spendTurn(usage);
  // only while the turn's calls will be run (the budget may have run out just now)
  const riding = starts && !ctx.budget?.exhaustion ? admitStarts(ctx, starts) : undefined;
  // the turn's event rides the commit of its message (none for a turn that failed)
  const completed = turn.error ? undefined : modelCompleted(ctx, iteration, turn, usage);
  const staged = completed && ctx.stage?.(completed);
  if (turn.message) {
    try {
      await commit(ctx, transcript, [turn.message], {
        iteration,
        ...(usage ? { addUsage: usage } : {}),
        ...(riding && riding.length > 0 ? { appendStartedCalls: riding } : {}),
      });
    } catch (err) {
      staged?.forget();
      throw err;
    }
  }
  if (turn.error) {
    ctx.budget?.flush();
    throw turn.error;
  }
  if (staged) staged.landed();
  else ctx.emit(completed!);
  ctx.budget?.flush();
  return usage;
}

/**
 * The calls a turn runs first, whose starts ride the commit of the turn's own message rather
 * than a write of their own (one store round trip less per turn), and what the budget said of
 * each (`commitTurn` admits them just before that commit, so it stores their count).
 */
interface TurnStarts {
  readonly calls: readonly string[];
  /** Each call's admission: undefined when admitted, else the text of its refusal. */
  admissions?: ReadonlyMap<string, string | undefined>;
  /** The starts the turn's commit carried: the admitted calls. */
  committed?: readonly string[];
  /** The budget's exhaustion once they were admitted (one they caused: `maxToolCalls`). */
  spent?: BudgetExhaustion;
}

/**
 * The first batch of a turn's calls, whose starts may ride the turn's commit: nothing runs
 * between the two writes this replaces that a start must precede (a call's policy, hooks and
 * approval come after its start either way). None for a turn that failed, one over
 * `maxToolCallsPerTurn` (refused whole), or once the calls' signal has fired.
 */
function startsRidingTurn(ctx: RunContext, turn: ModelTurn): TurnStarts | undefined {
  if (turn.error || !turn.message || turn.calls.length === 0) return undefined;
  if (turn.calls.length > ctx.limits.maxToolCallsPerTurn) return undefined;
  if ((ctx.callSignal ?? ctx.signal).aborted) return undefined;
  return { calls: firstBatch(turn.calls, ctx.catalog).map((c) => c.callId) };
}

/**
 * Admits the calls of `starts` with the budget, in response order, as each call's own start
 * would (a refused call gets no start: it never runs); returns the starts to commit.
 */
function admitStarts(ctx: RunContext, starts: TurnStarts): readonly string[] {
  const budget = ctx.budget;
  if (!budget) return (starts.committed = starts.calls);
  const admissions = new Map<string, string | undefined>();
  for (const id of starts.calls) admissions.set(id, budget.reserveCall());
  starts.admissions = admissions;
  starts.spent = budget.exhaustion;
  return (starts.committed = starts.calls.filter((id) => admissions.get(id) === undefined));
}

/**
 * A model turn the budget stopped in flight (SPEC 15.4: `maxDurationMs` passed while the model
 * answered): what it produced is committed, marked incomplete, with its usage if the model
 * reported any. With `onBudgetExhausted: 'fail'` the run ends with `BUDGET_EXHAUSTED`; with
 * `'finish'` it goes on to its last turn. Returns the turn's usage.
 */
async function stoppedTurn(
  ctx: RunContext,
  transcript: ModelMessage[],
  iteration: number,
  turn: ModelTurn,
  spent: BudgetExhaustion,
): Promise<Usage | undefined> {
  const error = budgetExhaustedError(spent, ctx.runId);
  try {
    await commitTurn(ctx, transcript, iteration, { ...turn, error });
  } catch (err) {
    if (err !== error || ctx.budget!.policy === 'fail') throw err;
  }
  return turn.usage && ctx.price ? ctx.price(turn.usage) : turn.usage;
}

/**
 * The run's budget is spent (SPEC 15.4): with `onBudgetExhausted: 'fail'` the run ends with
 * `BUDGET_EXHAUSTED`; with `'finish'` the model gets one last turn without tools (told why)
 * to answer from what was done. A last turn that still asks for tools gets them refused and
 * the run ends with `BUDGET_EXHAUSTED`; a typed answer gets no repair turn.
 */
async function lastTurn(
  ctx: RunContext,
  transcript: ModelMessage[],
  spent: BudgetExhaustion,
  iteration: number,
  usage: Usage,
  onDelta: (kind: 'text' | 'reasoning', content: string) => void,
): Promise<RunResult> {
  if (ctx.budget!.policy === 'fail') throw budgetExhaustedError(spent, ctx.runId);
  const note = `The budget of this run is spent (limits.${spent.limit}): no tool can run any more. Answer now, from what you have.`;
  await commit(ctx, transcript, [deepFreeze(userText(note))], {});
  const turn = await ctx.observer.modelTurn(iteration, ctx.stream, (attempts) =>
    nextTurn(ctx, transcript, NO_TOOLS, onDelta, attempts, ctx.signal),
  );
  const total = addUsage(usage, await commitTurn(ctx, transcript, iteration, turn));
  if (turn.calls.length > 0) {
    await refuseCalls(ctx, transcript, turn.calls, budgetRefusal(spent));
    throw budgetExhaustedError(spent, ctx.runId);
  }
  if (!ctx.output) return { content: turn.text, iterations: iteration, usage: total };
  const reading = await ctx.output.read(turn.text);
  if (!reading.ok) throw outputInvalidError(reading, 0);
  return { content: turn.text, output: reading.value, iterations: iteration, usage: total };
}

const NO_TOOLS = (): readonly ModelToolDefinition[] => [];

/** Records every call of a turn as not run, with `content` as its error result. */
async function refuseCalls(
  ctx: RunContext,
  transcript: ModelMessage[],
  calls: readonly RequestedCall[],
  content: string,
): Promise<void> {
  const refused = calls.map((c) => notRunOutcome(c, content));
  await commit(ctx, transcript, refused.map(toolMessage), {});
  for (const [i, r] of refused.entries()) ctx.emit(toolCompletedEvent(ctx, calls[i]!, r, 0));
}

/** The `model.completed` event of a turn that produced its message. */
function modelCompleted(
  ctx: RunContext,
  iteration: number,
  turn: ModelTurn,
  usage: Usage | undefined,
): AgentEvent {
  const message = turn.message!;
  return {
    type: 'model.completed',
    ...eventBase(ctx),
    iteration,
    text: turn.text,
    toolCalls: message.content.flatMap((p) =>
      p.type === 'tool-call' ? [{ callId: p.callId, name: p.name, arguments: p.arguments }] : [],
    ),
    stopReason: turn.stopReason,
    ...(usage ? { usage } : {}),
  };
}

/**
 * Runs one turn's calls and commits their results, then any redirect instruction. When calls
 * parked, their waits are stored in their place, the waits the run took up are settled, and
 * the run parks (`RunParked`).
 */
async function runCalls(
  ctx: RunContext,
  transcript: ModelMessage[],
  calls: readonly ToolCallRequest[],
  replaying?: ReadonlySet<string>,
  counted = true,
  recorded?: ReadonlySet<string>,
  admissions?: ReadonlyMap<string, string | undefined>,
): Promise<void> {
  const waits = ctx.waits;
  const budget = ctx.budget;
  const commits = skipRecorded(
    stepCommits(
      // what committing reads of the run, not a copy of the whole context per turn
      waits
        ? { sessionId: ctx.sessionId, store: ctx.store, park: (outcome) => waits.park(outcome) }
        : ctx,
      transcript,
    ),
    recorded,
  );
  const emit = ctx.emit as (event: ToolEvent) => void;
  const outcomes = await runTurnCalls(
    calls,
    {
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      signal: ctx.callSignal ?? ctx.signal,
      catalog: ctx.catalog,
      policy: ctx.policy,
      beforeTool: ctx.beforeTool,
      afterTool: ctx.afterTool,
      maxToolArgumentBytes: ctx.limits.maxToolArgumentBytes,
      maxToolArgumentDepth: ctx.limits.maxToolArgumentDepth,
      maxToolResultBytes: ctx.limits.maxToolResultBytes,
      emit: replaying ? (event) => emit(replayedEvent(event, replaying)) : emit,
      onObserverError: ctx.onObserverError,
      ...(ctx.finishResult ? { finishResult: ctx.finishResult } : {}),
      scope: ctx.scope,
      ...(waits ? { waits } : {}),
    },
    ctx.observer,
    replaying
      ? replayCommits(commits, replaying, (callId) =>
          recorded?.has(replayMark(callId))
            ? Promise.resolve()
            : ctx.store.update(ctx.sessionId, {
                ...UNCHANGED,
                appendStartedCalls: [replayMark(callId)],
              }),
        )
      : commits,
    budget && counted
      ? (call) => (admissions?.has(call.callId) ? admissions.get(call.callId) : budget.startCall())
      : undefined,
  );
  waits?.settle();
  // the calls that became tasks and ended have their results committed: their handles go
  await waits?.releaseTasks(outcomes);
  // a turn that parks has calls still to answer: a user note now would split its results
  // (the redirected calls' results carry their instruction)
  if (waits && waits.parked.length > 0) throw new RunParked([...waits.parked]);
  const notes: ModelMessage[] = redirects(outcomes).map((redirect) =>
    deepFreeze(userText(redirect)),
  );
  if (notes.length > 0) await commit(ctx, transcript, notes, {});
}

/** The request of the next model turn: the transcript as the context manager shapes it. */
async function modelRequest(
  ctx: RunContext,
  transcript: readonly ModelMessage[],
  tools: () => readonly ModelToolDefinition[],
): Promise<ModelRequest> {
  return {
    modelName: ctx.modelName,
    ...(ctx.system !== undefined ? { system: ctx.system } : {}),
    messages: await ctx.context.prepare(transcript, ctx),
    tools: tools(),
    ...(ctx.reasoningEffort !== undefined ? { reasoningEffort: ctx.reasoningEffort } : {}),
    stream: ctx.stream,
    ...(ctx.promptCacheKey !== undefined ? { promptCacheKey: ctx.promptCacheKey } : {}),
    ...(ctx.output ? { output: ctx.output.format } : {}),
  };
}

/**
 * The next model turn: its request is prepared within the observer's turn (inside a traced
 * turn's span), and `attempts` hears of its retries. `signal` stops it: the run's, or the
 * run's calls' (also aborted when the budget runs out).
 */
async function nextTurn(
  ctx: RunContext,
  transcript: readonly ModelMessage[],
  tools: () => readonly ModelToolDefinition[],
  onDelta: (kind: 'text' | 'reasoning', content: string) => void,
  attempts: TurnAttempts | undefined,
  signal: AbortSignal,
): Promise<ModelTurn> {
  const request = await modelRequest(ctx, transcript, tools);
  return takeModelTurn(ctx.model, request, signal, onDelta, ctx.modelRetry, attempts);
}

function abortError(ctx: RunContext): MusterError {
  return abortedError('The run', ctx.signal.reason);
}

function userText(text: string): ModelMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

function redirects(outcomes: readonly ToolCallOutcome[]): string[] {
  return outcomes.flatMap((o) => (o.redirect !== undefined ? [o.redirect] : []));
}
