import type { ContextCompactedEvent } from '../context/index.js';
import type { MusterError } from '../errors/index.js';
import type { StopReason, ToolCallPart, Usage } from '../model/index.js';
import type { McpEvent } from '../mcp/index.js';
import type { ToolEvent } from '../tools/index.js';
import type { EventBase } from '../util/index.js';

/** A run started. `continued` is true when the session already existed. */
export interface SessionStartedEvent extends EventBase {
  readonly type: 'session.started';
  readonly continued: boolean;
  readonly modelName: string;
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
  | SessionFailedEvent;

/** The `type` of any agent event. */
export type AgentEventType = AgentEvent['type'];
