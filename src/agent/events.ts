import type { ContextCompactedEvent } from '../context/index.js';
import type { MusterError } from '../errors/index.js';
import type { StopReason, ToolCallPart, Usage } from '../model/index.js';
import type { McpEvent } from '../mcp/index.js';
import type { ToolEvent } from '../tools/index.js';
import type { BudgetLimitName, Wait, WaitDecision } from '../session/index.js';
import type { EventBase } from '../util/index.js';

/** A run started. `continued` is true when the session already existed. */
export interface SessionStartedEvent extends EventBase {
  readonly type: 'session.started';
  readonly continued: boolean;
  readonly modelName: string;
  /** The user the run acts for (SPEC 15.4); absent for the local user. */
  readonly principal?: string;
}

/** A streamed piece of model output. */
export interface ModelDeltaEvent extends EventBase {
  readonly type: 'model.delta';
  readonly kind: 'text' | 'reasoning';
  readonly content: string;
}

/** A model turn was assembled. */
export interface ModelCompletedEvent extends EventBase {
  readonly type: 'model.completed';
  readonly iteration: number;
  readonly text: string;
  readonly toolCalls: readonly Pick<ToolCallPart, 'callId' | 'name' | 'arguments'>[];
  readonly stopReason: StopReason;
  readonly usage?: Usage;
}

/** The run produced its final answer. */
export interface SessionCompletedEvent extends EventBase {
  readonly type: 'session.completed';
  readonly content: string;
  /** The validated typed answer, when the run asked for `output` (SPEC 15.4). */
  readonly output?: unknown;
  readonly iterations: number;
  /** Usage of this run. */
  readonly usage: Usage;
}

/** A call parked: the wait any process may decide (SPEC 15.1), as stored. */
export interface WaitCreatedEvent extends EventBase {
  readonly type: 'wait.created';
  readonly wait: Wait;
}

/**
 * A resumed run took up a wait: `applied` when its decision (or its expiry) decided the call,
 * false when the call changed since (tool, arguments or policy) and a fresh wait replaces it.
 */
export interface WaitDecidedEvent extends EventBase {
  readonly type: 'wait.decided';
  readonly waitId: string;
  readonly callId?: string;
  readonly kind: Wait['kind'];
  /**
   * Whether the decision decided the call, known when a resumed run takes the wait up;
   * absent on the event `decide()` logs when the decision is taken.
   */
  readonly applied?: boolean;
  /** The decision; absent when the wait expired undecided. */
  readonly decision?: WaitDecision;
  readonly expired: boolean;
}

/**
 * The run parked (SPEC 15.1): its transcript, pending calls and waits are committed and its
 * lease released; decide the waits from any process, then `resume()` the session.
 */
export interface SessionParkedEvent extends EventBase {
  readonly type: 'session.parked';
  readonly waits: readonly Wait[];
}

/**
 * A steering message (`agent.steer`) joined the transcript as a user message, at a step
 * boundary, before the next model request.
 */
export interface SteeringDeliveredEvent extends EventBase {
  readonly type: 'steering.delivered';
  readonly text: string;
}

/**
 * The run has spent 80 % of one of its budget limits (SPEC 15.4), its delegated runs and
 * sampling included: reported once per limit per run (a resumed run does not repeat it).
 */
export interface BudgetWarningEvent extends EventBase {
  readonly type: 'budget.warning';
  readonly limit: BudgetLimitName;
  /** The limit: tokens, US dollars, milliseconds or tool calls. */
  readonly max: number;
  /** What the run has spent of it, in the same unit. */
  readonly spent: number;
}

/**
 * The run's budget is spent (SPEC 15.4): no tool of the turn runs, calls in flight are
 * cancelled, and the run ends with `BUDGET_EXHAUSTED` (`onBudgetExhausted: 'fail'`) or takes
 * one last turn without tools to answer (`'finish'`); a turn that answered without tools
 * still completes the run. Reported once per run.
 */
export interface BudgetExhaustedEvent extends EventBase {
  readonly type: 'budget.exhausted';
  readonly limit: BudgetLimitName;
  readonly max: number;
  readonly spent: number;
  /** What the run does now. */
  readonly onBudgetExhausted: 'fail' | 'finish';
}

/** The run failed; `run()` throws the same error right after this event. */
export interface SessionFailedEvent extends EventBase {
  readonly type: 'session.failed';
  readonly error: MusterError;
}

/** Every event a run yields, discriminated on `type`. */
export type AgentEvent =
  | SessionStartedEvent
  | ContextCompactedEvent
  | ModelDeltaEvent
  | ModelCompletedEvent
  | McpEvent
  | ToolEvent
  | SessionCompletedEvent
  | SessionFailedEvent
  | WaitCreatedEvent
  | WaitDecidedEvent
  | SessionParkedEvent
  | SteeringDeliveredEvent
  | BudgetWarningEvent
  | BudgetExhaustedEvent;

/** The `type` of any agent event. */
export type AgentEventType = AgentEvent['type'];
