import type { ToolCallEnvironment, ToolCallOutcome, ToolCallRequest } from '../tools/index.js';
import type { TraceContext } from '../util/index.js';
import type { AgentEvent } from './events.js';
import type { ModelTurn, TurnAttempts } from './model-turn.js';

// What the loop lets watch a run, declared by the loop: tracing (src/agent/tracing) implements
// it, and the loop never asks whether anything watches (an unobserved run has UNOBSERVED).

/** The run an observer is started for. */
export interface ObservedRun {
  readonly sessionId: string;
  readonly runId: string;
  readonly modelName: string;
  /** The model client's `provider` (`openai.responses`). */
  readonly provider: string;
  /** The running agent's name: its own (a child's differs from its root's), or its tool's for a delegated run. */
  readonly agentName?: string | undefined;
  /** The user's input text (none for a resumed run). */
  readonly input?: string | undefined;
  /** The principal the run acts for (SPEC 15.4); none for the local user. */
  readonly principal?: string | undefined;
}

/**
 * Watches one run from inside its loop: every event of the run, and each model turn and tool
 * call wrapped around the work doing it. The loop calls it unconditionally. An observer never
 * changes the run: it returns what `take` and `run` return, and a failure of its own is
 * reported, never thrown (SPEC 10).
 */
export interface RunObserver {
  /** Reads one event of the run. */
  onEvent(event: AgentEvent): void;
  /**
   * Takes model turn `iteration` by calling `take` once, with what follows the turn's attempts
   * (`undefined`: nothing does).
   */
  modelTurn(
    iteration: number,
    stream: boolean,
    take: (attempts: TurnAttempts | undefined) => Promise<ModelTurn>,
  ): Promise<ModelTurn>;
  /**
   * Runs one tool call by calling `run` once, with `env` or (a call given a trace context of
   * its own, such as a delegated run's parent) a copy of it carrying that context. The
   * observer reads what it needs (the tool's info) from `env`: an unobserved call allocates
   * nothing here.
   */
  toolCall(
    call: ToolCallRequest,
    env: ToolCallEnvironment,
    run: (call: ToolCallRequest, env: ToolCallEnvironment) => Promise<ToolCallOutcome>,
  ): Promise<ToolCallOutcome>;
}

/** The observer of a run nothing watches: the work passes straight through. */
export const UNOBSERVED: RunObserver = Object.freeze<RunObserver>({
  onEvent() {},
  modelTurn: (_iteration, _stream, take) => take(undefined),
  toolCall: (call, env, run) => run(call, env),
});

/**
 * Where an agent's run observers come from (SPEC 12b: its tracing), as its runs, sessions and
 * facade see it; a child uses its root's.
 */
export interface RunTracing {
  /**
   * Whether a run starting now is observed, decided synchronously: an unobserved run awaits
   * nothing and builds nothing.
   */
  traces(): boolean;
  /** Loads what observing needs (at most once); resolves at once when nothing is needed. */
  prepare(): Promise<void>;
  /**
   * The observer of a run starting now (call it when {@link traces}); {@link UNOBSERVED} when
   * there is nothing to observe with after all. `parent` is the run's own `traceContext`.
   */
  startRun(run: ObservedRun, parent: TraceContext | undefined): Promise<RunObserver>;
  /** Reads an event from outside any run (connects started by `initialize()` or the registry). */
  background(event: AgentEvent): void;
}
