import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError, abortedError } from '../../errors/index.js';
import { sleepUnlessAborted } from '../../util/index.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { clientErrorOf } from '../failures/client-errors.js';
import { invalidResponseError } from '../failures/connection-errors.js';
import { TaskToolResultSchema } from './task-schemas.js';
import type { DetailedTask } from './task-schemas.js';

/**
 * How a poller reaches the server of a task: each request on whatever connection is live
 * (a task outlives the connection that created it).
 */
export interface TaskChannel {
  /** `tasks/get`. */
  get(taskId: string, signal: AbortSignal): Promise<DetailedTask>;
  /** `tasks/update` with answers to the task's input requests. */
  update(
    taskId: string,
    inputResponses: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * `tasks/cancel`, sent in the background (the call it ends has settled already); the
   * channel keeps it bounded and reports its failure nowhere but to its own tracking.
   */
  cancel(taskId: string): void;
}

/** A task's status as a `tool.task` event reports it. */
export interface TaskStatusReport {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage?: string;
}

/**
 * Answers a task's input requests (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`, by key): only keys not answered before reach a person, and the answers
 * come back by key. Rejects when one cannot be answered.
 */
export type TaskInputAnswerer = (
  inputRequests: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
) => Promise<Readonly<Record<string, unknown>>>;

/** What following one task needs besides the channel. */
export interface TaskPollOptions {
  readonly server: string;
  readonly toolName: string;
  /** `mcp.tasks.minPollIntervalMs` (resolved). */
  readonly minPollIntervalMs: number;
  /** `mcp.tasks.maxPollIntervalMs` (resolved). */
  readonly maxPollIntervalMs: number;
  /** The call's signal: an abort sends `tasks/cancel` once and ends the call. */
  readonly signal: AbortSignal;
  /** Told of the seed status, then of each change of status or status message. */
  readonly onStatus?: (report: TaskStatusReport) => void;
  /** Answers `input_required`; without it such a task fails (`no-input-handler`). */
  readonly answerInput?: TaskInputAnswerer;
  /**
   * Whether an abort sends `tasks/cancel` (default true); false when the caller cancels the
   * task itself (a host's handle).
   */
  readonly cancelOnAbort?: boolean;
  /** Masks the server's secrets in text the server wrote (status messages, error messages). */
  readonly redact?: (text: string) => string;
  /** The clock (tests); `Date.now` by default. */
  readonly now?: () => number;
}

/**
 * The wait before the next poll: what the server asked for (`pollIntervalMs`, which may
 * change on every poll), kept within `[min, max]`; `min` when it did not say.
 */
export function clampPollInterval(requested: number | undefined, min: number, max: number): number {
  if (requested === undefined || !Number.isFinite(requested)) return min;
  return Math.min(max, Math.max(min, requested));
}

/** When a task stops being usable (`createdAt + ttlMs`), if it says; undefined for no limit. */
function deadlineOf(task: { createdAt: string; ttlMs: number | null }): number | undefined {
  if (task.ttlMs === null) return undefined;
  const created = Date.parse(task.createdAt);
  return Number.isNaN(created) ? undefined : created + task.ttlMs;
}

/** Why polling ends without a result, as the error the call gets. */
class TaskEnd {
  constructor(
    readonly error: unknown,
    /** True when the task may still run, so it is cancelled before the call gives up. */
    readonly cancel: boolean,
  ) {}
}

/**
 * Follows a task a server answered a `tools/call` with (SEP-2663, SPEC 15.3) to its end:
 * polls `tasks/get` at the server's `pollIntervalMs`, clamped to `[min, max]` interval
 * options; reports the seed status and every change (`onStatus`); answers input requests
 * through `tasks/update`; resolves with the `CallToolResult` of a `completed` task (an
 * `isError` result included: it is the tool's). Otherwise it rejects:
 * - `failed`: `TOOL_EXECUTION_FAILED`, reason `task-failed` (`protocolCode` when given);
 * - `cancelled` by the server: `TOOL_EXECUTION_FAILED`, reason `task-cancelled`;
 * - `-32602` for its id (decided from the code): `TOOL_OUTCOME_UNKNOWN`, `task-not-found`;
 * - still not done after `createdAt + ttlMs` (the latest the server gave):
 *   `TOOL_OUTCOME_UNKNOWN`, `task-expired`;
 * - an answer that is no task (a status no revision defines, a `completed` without a tool
 *   result): `MCP_OPERATION_FAILED`, reason `invalid-response`, after one poll;
 * - an abort: `tasks/cancel` is sent once, and the abort's error is thrown.
 * A task given up while it may still run (an invalid answer, a failed request, input no
 * handler answers, an abort) gets its `tasks/cancel`, once, so none is left behind.
 */
export async function pollTask(
  channel: TaskChannel,
  seed: CapturedTask,
  options: TaskPollOptions,
): Promise<CallToolResult> {
  const { signal, server, toolName } = options;
  const now = options.now ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);
  const { taskId } = seed;
  let last: TaskStatusReport | undefined;
  const report = (task: { status: string; statusMessage?: string | undefined }) => {
    const statusMessage = task.statusMessage === undefined ? undefined : redact(task.statusMessage);
    if (last && last.status === task.status && last.statusMessage === statusMessage) return;
    last = {
      taskId,
      status: task.status,
      ...(statusMessage !== undefined ? { statusMessage } : {}),
    };
    options.onStatus?.(last);
  };
  report(seed);
  let interval = seed.pollIntervalMs;
  let deadline = deadlineOf(seed);
  try {
    for (;;) {
      const waitMs = clampPollInterval(
        interval,
        options.minPollIntervalMs,
        options.maxPollIntervalMs,
      );
      if (!(await sleepUnlessAborted(waitMs, signal))) throw aborted(signal, toolName);
      const task = await ended(channel.get(taskId, signal), signal, server, toolName);
      report(task);
      interval = task.pollIntervalMs ?? interval;
      deadline = deadlineOf(task);
      switch (task.status) {
        case 'completed': {
          const parsed = TaskToolResultSchema.safeParse(task.result);
          if (!parsed.success)
            throw new TaskEnd(
              invalidResponseError(
                server,
                'tasks/get',
                'a completed task whose result is no tool result',
              ),
              false,
            );
          return parsed.data as CallToolResult;
        }
        case 'failed':
          throw new TaskEnd(failedError(server, toolName, taskId, task, redact), false);
        case 'cancelled':
          throw new TaskEnd(
            new ToolError(
              'TOOL_EXECUTION_FAILED',
              `Server '${server}' cancelled the task of '${toolName}' (${taskId})${task.statusMessage ? `: ${redact(task.statusMessage)}` : ''}.`,
              { toolName, details: { server, taskId, reason: 'task-cancelled' } },
            ),
            false,
          );
        case 'input_required':
          await answer(channel, task.inputRequests, options, server, toolName, taskId);
          break;
        default:
          break;
      }
      if (deadline !== undefined && now() > deadline)
        throw new TaskEnd(
          new ToolError(
            'TOOL_OUTCOME_UNKNOWN',
            `The task of '${toolName}' on server '${server}' (${taskId}) was still ${task.status} when its time to live (ttlMs ${task.ttlMs}) ran out. The call may or may not have taken effect; it was not retried.`,
            { toolName, details: { server, taskId, reason: 'task-expired' } },
          ),
          false,
        );
    }
  } catch (err) {
    const end = signal.aborted
      ? new TaskEnd(aborted(signal, toolName), options.cancelOnAbort !== false)
      : err instanceof TaskEnd
        ? err
        : new TaskEnd(err, true);
    if (end.cancel) channel.cancel(taskId);
    throw end.error;
  }
}

/** Answers a task's outstanding input requests (the new keys) with one `tasks/update`. */
async function answer(
  channel: TaskChannel,
  inputRequests: Readonly<Record<string, unknown>>,
  options: TaskPollOptions,
  server: string,
  toolName: string,
  taskId: string,
): Promise<void> {
  if (!options.answerInput)
    throw new TaskEnd(
      new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The task of '${toolName}' on server '${server}' asked for input, and nothing here answers a task's input requests.`,
        { toolName, details: { server, taskId, reason: 'no-input-handler' } },
      ),
      true,
    );
  const responses = await options.answerInput(inputRequests, options.signal);
  if (Object.keys(responses).length === 0) return;
  await ended(channel.update(taskId, responses, options.signal), options.signal, server, toolName);
}

/**
 * A request of the poll, its failure read on typed facts: `-32602` means the server does not
 * know the task (its id is gone: the outcome is unknown, and there is nothing to cancel).
 */
async function ended<T>(
  request: Promise<T>,
  signal: AbortSignal,
  server: string,
  toolName: string,
): Promise<T> {
  try {
    return await request;
  } catch (err) {
    if (signal.aborted) throw err;
    const fact = clientErrorOf(err);
    if (fact?.kind === 'protocol' && fact.code === -32602)
      throw new TaskEnd(
        new ToolError(
          'TOOL_OUTCOME_UNKNOWN',
          `Server '${server}' no longer knows the task of '${toolName}' (it answered -32602): it may have expired or been purged. The call may or may not have taken effect; it was not retried.`,
          { toolName, cause: err, details: { server, reason: 'task-not-found' } },
        ),
        false,
      );
    throw err;
  }
}

/** A `failed` task as the tool's error: its JSON-RPC error, or the status message when none. */
function failedError(
  server: string,
  toolName: string,
  taskId: string,
  task: DetailedTask & { status: 'failed' },
  redact: (text: string) => string,
): ToolError {
  const error = task.error;
  const why = redact(error?.message ?? task.statusMessage ?? 'the server gave no error');
  return new ToolError(
    'TOOL_EXECUTION_FAILED',
    `The task of '${toolName}' on server '${server}' (${taskId}) failed: ${why}`,
    {
      toolName,
      details: {
        server,
        taskId,
        reason: 'task-failed',
        ...(error?.code !== undefined ? { protocolCode: error.code } : {}),
      },
    },
  );
}

function aborted(signal: AbortSignal, toolName: string): Error {
  return abortedError(`The task of '${toolName}'`, signal.reason);
}
