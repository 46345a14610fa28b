import type { DecisionKind, DecisionStage } from '../policy/index.js';
import type { EventBase } from '../util/index.js';
import type { ToolErrorCode } from '../errors/index.js';
import type { ToolAnnotations, ToolSource } from './tool-types.js';

/** The approver is being asked about a call. Carries the exact arguments that would run. */
export interface ToolApprovalRequestedEvent extends EventBase {
  readonly type: 'tool.approval.requested';
  readonly callId: string;
  readonly toolName: string;
  readonly source: ToolSource;
  readonly server?: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly annotations?: ToolAnnotations;
}

/** The final policy decision for a call (no arguments). */
export interface ToolDecisionEvent extends EventBase {
  readonly type: 'tool.decision';
  readonly callId: string;
  readonly toolName: string;
  /** `park`: the call waits on a decision taken outside the run (SPEC 15.1). */
  readonly decision: DecisionKind | 'park';
  readonly stage: DecisionStage;
  readonly reason?: string;
  readonly ruleId?: string;
  /** True when the policy is in dry-run mode: the tool was not executed. */
  readonly dryRun: boolean;
}

/** An approved call is about to execute. */
export interface ToolCalledEvent extends EventBase {
  readonly type: 'tool.called';
  readonly callId: string;
  readonly toolName: string;
  readonly source: ToolSource;
  readonly server?: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A running call reported progress. */
export interface ToolProgressEvent extends EventBase {
  readonly type: 'tool.progress';
  readonly callId: string;
  readonly toolName: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * A call the server made a task of (SPEC 15.3) reported its status: the seed status when the
 * task is created, then each change of status or status message while it is polled.
 */
export interface ToolTaskEvent extends EventBase {
  readonly type: 'tool.task';
  readonly callId: string;
  readonly toolName: string;
  readonly server?: string;
  readonly taskId: string;
  /** `working`, `input_required`, `completed`, `failed`, `cancelled` (as the server said). */
  readonly status: string;
  /** The server's message for this status, its secrets masked. */
  readonly statusMessage?: string;
}

/** A call ended: executed, refused or failed. `content` is what the model reads. */
export interface ToolCompletedEvent extends EventBase {
  readonly type: 'tool.completed';
  readonly callId: string;
  readonly toolName: string;
  readonly isError: boolean;
  readonly content: string;
  /** The Muster code when the call failed or was refused. */
  readonly errorCode?: ToolErrorCode;
  /** Whether the tool's implementation ran. */
  readonly executed: boolean;
  /**
   * How long the pipeline took for the call (checks, policy, hooks, the tool, the result),
   * without the time its approver took to answer: a person's thinking time is not the call's.
   */
  readonly durationMs: number;
}

/** Events the tool pipeline emits. */
export type ToolEvent =
  | ToolApprovalRequestedEvent
  | ToolDecisionEvent
  | ToolCalledEvent
  | ToolProgressEvent
  | ToolTaskEvent
  | ToolCompletedEvent;
