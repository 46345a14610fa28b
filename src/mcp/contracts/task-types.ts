// The Tasks extension's handle as the transport layer captures it (see transports/task-capture.ts).
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ParkedInputs } from '../../tools/index.js';

/**
 * The task a server created instead of answering a `tools/call` (SEP-2663's
 * `CreateTaskResult`), as the answer carried it: the seed state the client polls from.
 */
export interface CapturedTask {
  /** The JSON-RPC id of the `tools/call` it answered. */
  readonly requestId: number | string;
  readonly taskId: string;
  /** The seed status (usually `working`). */
  readonly status: string;
  readonly statusMessage?: string;
  /** ISO 8601, as the server wrote it. */
  readonly createdAt: string;
  readonly lastUpdatedAt?: string;
  /** How long the server keeps the task after `createdAt` (`null`: no limit). */
  readonly ttlMs: number | null;
  /** How often the server wants to be polled, if it said. */
  readonly pollIntervalMs?: number;
}

/** A `tools/call` answered with `resultType: "task"`: the task, or why it was no task. */
export type CapturedTaskAnswer =
  | { readonly kind: 'task'; readonly task: CapturedTask }
  | {
      readonly kind: 'malformed';
      readonly requestId: number | string;
      readonly problem: string;
      /** Its task id, when it had a usable one: the task may exist, and is cancelled. */
      readonly taskId?: string;
    };

/** What a late task answer (one for a call given up) hands its caller: the task to cancel. */
export interface LateTask {
  readonly taskId: string;
}

/**
 * Marks one `tools/call` as watched for a task answer. It travels to the transport as the
 * request option `onresumptiontoken`, the one option the official client hands `send()` as
 * it was given (so the capture learns which JSON-RPC id the call got); the transport calls
 * it with the event ids of a resumable stream, which it ignores.
 */
export type TaskCallTag = (resumptionToken: string) => void;

/** What a connection uses of its transport's task capture. */
export interface TaskAnswerCapture {
  /**
   * A new tag for one call; pass it as the request option `onresumptiontoken`. With `hold`
   * (a connection that takes tasks), an abort of the call does not cut its response stream
   * before its answer is read (see `TaskCapture`), so a task answered meanwhile is not lost.
   */
  tag(options?: { readonly hold?: boolean }): TaskCallTag;
  /**
   * The task answer captured for `tag`, if one came; forgets it and the call. With `onLate`
   * (a call given up before its answer came: an abort, a timeout), a task answer that still
   * comes for it within a short grace goes to `onLate` (whoever gave up cancels it; a
   * malformed one too, when it has a task id), so no task a server created is left behind
   * unknown.
   */
  take(tag: TaskCallTag, onLate?: (task: LateTask) => void): CapturedTaskAnswer | undefined;
}

/**
 * Polling stopped with the task still running, where the call may park on it (SPEC 15.3):
 * `mcp.tasks.parkAfterMs` passed with the task `working`, the agent closed, or an
 * elicitation of the task's `input_required` was answered `park` (`input`: the requests a
 * person answers later, and the answers given at once to the others, sent back together on
 * resume). Carries the task's latest state and when its answer was read (ms since the
 * epoch). Not a failure: the executor parks the call; nothing was cancelled.
 */
export class TaskStillRunning {
  constructor(
    readonly task: CapturedTask,
    readonly acceptedAt: number,
    readonly input?: ParkedInputs,
    /** When `task`'s status was last read with `tasks/get` (ms since the epoch); absent: never. */
    readonly polledAt?: number,
  ) {}
}

/** What `McpConnection.callToolOrTask` gives: the tool's result, or the task the server made. */
export type McpToolAnswer =
  | { readonly kind: 'result'; readonly result: CallToolResult }
  | { readonly kind: 'task'; readonly task: CapturedTask };
