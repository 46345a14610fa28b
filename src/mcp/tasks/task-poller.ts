import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError, abortedError } from '../../errors/index.js';
import { sleepUnlessAborted } from '../../util/index.js';
import { TaskStillRunning } from '../contracts/task-types.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { clientErrorOf } from '../failures/client-errors.js';
import { invalidResponseError } from '../failures/connection-errors.js';
import { TaskToolResultSchema } from './task-schemas.js';
import type { DetailedTask } from './task-schemas.js';
import type { ParkedInputs } from '../../tools/index.js';

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

/**
 * A round of a task's input requests in which an elicitation was answered `park`: the
 * requests a person answers later, and the answers given at once to the round's others
 * (sent back with them when the run resumes). Not a failure: the call parks.
 */
export class TaskInputParked {
  constructor(readonly input: ParkedInputs) {}
}

/** What following one task needs besides the channel. */
export interface TaskPollOptions {
  readonly server: string;
  readonly toolName: string;
  /** `mcp.tasks.minPollIntervalMs` (resolved). */
  readonly minPollIntervalMs: number;
  /** `mcp.tasks.maxPollIntervalMs` (resolved). */
  readonly maxPollIntervalMs: number;
  /** The call's signal: an abort ends the call (and cancels the task, see `cancelOnAbort`). */
  readonly signal: AbortSignal;
  /**
   * Told of the seed status (unless `seedReported`), then of each change of status or status
   * message.
   */
  readonly onStatus?: (report: TaskStatusReport) => void;
  /**
   * The seed's status was reported already (a task resumed from its wait: the run that parked
   * it reported it, and the wait stores it): only changes from it are reported.
   */
  readonly seedReported?: boolean;
  /** Answers `input_required`; without it such a task fails (`no-input-handler`). */
  readonly answerInput?: TaskInputAnswerer;
  /**
   * Whether an abort sends `tasks/cancel`, given the signal's reason (default: always); false
   * when the caller cancels the task itself (a host's handle), or for an abort that is no
   * cancel (an agent's `close()`: SPEC 15.3).
   */
  readonly cancelOnAbort?: boolean | ((reason: unknown) => boolean);
  /**
   * Whether a failed `tasks/get` is worth another poll (a request that was not sent, a
   * timeout, a 5xx): retried with backoff, at most {@link MAX_POLL_FAILURES} times in a row
   * and never past the task's ttl. Default: none is.
   */
  readonly transient?: (err: unknown) => boolean;
  /**
   * The call's total deadline (`maxTotalTimeoutMs`), in `now()` time: one last poll at it,
   * then the call gives up (`TOOL_OUTCOME_UNKNOWN`, reason `timeout`) and cancels the task.
   */
  readonly total?: { readonly at: number; readonly limitMs: number };
  /**
   * When the task answer was read, in `now()` time (default: when polling starts): the ttl
   * is counted from here, on this clock (the server's `createdAt` comes from another one).
   */
  readonly acceptedAt?: number;
  /**
   * Where the call may park on its task (SPEC 15.3): a `working` task polled past `at` (in
   * `now()` time), or an abort whose reason `onAbort` accepts (an agent's close), ends the
   * poll with {@link TaskStillRunning}, nothing cancelled.
   */
  readonly park?: {
    readonly at?: number;
    readonly onAbort?: (reason: unknown) => boolean;
  };
  /** Polls at once, before the first interval (a task resumed from its wait). */
  readonly pollFirst?: boolean;
  /**
   * When the seed's status was read with `tasks/get` (ms since the epoch; a task resumed from
   * its wait: the wait's `polledAt`), kept for a park before a fresh poll answers.
   */
  readonly polledAt?: number;
  /**
   * Answers a person gave while the call was parked on the task's input requests (with the
   * ones given at once), sent with one `tasks/update` before the first poll.
   */
  readonly initialAnswers?: Readonly<Record<string, unknown>>;
  /**
   * One poll only (a task wait past `waits.ttlMs`): a task not done by then ends the call
   * (`TOOL_OUTCOME_UNKNOWN`, reason `task-expired`, `details.waitExpired`) and is cancelled.
   */
  readonly lastPoll?: boolean;
  /**
   * Awaited before the first poll: commits the task's handle (a `task` wait). A failure ends
   * the call and cancels the task (nobody could follow it).
   */
  readonly onAccepted?: (acceptedAt: number) => Promise<void>;
  /** Masks the server's secrets in text the server wrote (status messages, error messages). */
  readonly redact?: (text: string) => string;
  /** The copy of a failure kept as an error's cause (the server's secrets masked). */
  readonly redactCause?: (err: unknown) => unknown;
  /** The clock (tests); `Date.now` by default. */
  readonly now?: () => number;
}

/** Failed `tasks/get` requests in a row that a poll survives (transient ones only). */
export const MAX_POLL_FAILURES = 3;

/**
 * The wait before the next poll: what the server asked for (`pollIntervalMs`, which may
 * change on every poll), kept within `[min, max]`; `min` when it did not say.
 */
export function clampPollInterval(requested: number | undefined, min: number, max: number): number {
  if (requested === undefined || !Number.isFinite(requested)) return min;
  return Math.min(max, Math.max(min, requested));
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
 * - `-32602` for its id on `tasks/get` (decided from the code): `TOOL_OUTCOME_UNKNOWN`,
 *   `task-not-found`;
 * - still not done `ttlMs` (the latest the server gave) after the task answer was read, on
 *   this process's clock: `TOOL_OUTCOME_UNKNOWN`, `task-expired`, after one last poll;
 * - still not done at the call's total deadline: `TOOL_OUTCOME_UNKNOWN`, `timeout`;
 * - an answer that is no task (a status no revision defines, a `completed` without a tool
 *   result): `MCP_OPERATION_FAILED`, reason `invalid-response`, after one poll;
 * - a failed request: its error (a transient `tasks/get` failure is retried first);
 * - an abort: the abort's error (`ABORTED`).
 * A task given up while it may still run (expired, past the total deadline, an invalid
 * answer, a failed request, input nothing answers, an abort that is a cancel) gets its
 * `tasks/cancel`, once, so none is left behind. Every error names the task (`taskId`).
 */
export async function pollTask(
  channel: TaskChannel,
  seed: CapturedTask,
  options: TaskPollOptions,
): Promise<CallToolResult> {
  const { signal, server } = options;
  const now = options.now ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);
  const toolName = redact(options.toolName);
  const ids: TaskIds = { server, taskId: seed.taskId, toolName, name: options.toolName };
  const { taskId } = seed;
  const acceptedAt = options.acceptedAt ?? now();
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
  let interval = seed.pollIntervalMs;
  let ttlMs = seed.ttlMs;
  let failures = 0;
  let first = options.pollFirst === true;
  // the task as it stands, for a park: the latest status, message, ttl and interval
  let latest: CapturedTask =
    seed.statusMessage === undefined
      ? seed
      : { ...seed, statusMessage: redact(seed.statusMessage) };
  // when `latest` was read with `tasks/get` (a park stores it: the studio shows it)
  let polledAt: number | undefined = options.polledAt;
  try {
    await options.onAccepted?.(acceptedAt);
    if (options.seedReported) {
      const statusMessage =
        seed.statusMessage === undefined ? undefined : redact(seed.statusMessage);
      last = {
        taskId,
        status: seed.status,
        ...(statusMessage !== undefined ? { statusMessage } : {}),
      };
    } else report(seed);
    const initial = options.initialAnswers;
    if (initial && Object.keys(initial).length > 0)
      await ended(channel.update(taskId, initial, signal), signal, ids, options, false);
    for (;;) {
      const total = options.total;
      if (total && now() >= total.at)
        throw new TaskEnd(
          unknownOutcome(
            ids,
            'timeout',
            `was still ${last?.status ?? 'working'} when the call's maxTotalTimeoutMs (${total.limitMs} ms) passed`,
            { limit: 'maxTotalTimeoutMs', limitMs: total.limitMs },
          ),
          true,
        );
      const clamped = clampPollInterval(
        interval,
        options.minPollIntervalMs,
        options.maxPollIntervalMs,
      );
      // after a failed poll the wait doubles (within the maximum)
      const backedOff =
        failures === 0 ? clamped : Math.min(options.maxPollIntervalMs, clamped * 2 ** failures);
      const planned = first ? 0 : backedOff;
      first = false;
      const waitMs = total ? Math.min(planned, Math.max(0, total.at - now())) : planned;
      if (!(await sleepUnlessAborted(waitMs, signal))) throw aborted(signal, ids);
      let task: DetailedTask;
      try {
        task = await ended(channel.get(taskId, signal), signal, ids, options, true);
        failures = 0;
      } catch (err) {
        const expired = ttlMs !== null && now() > acceptedAt + ttlMs;
        if (
          err instanceof TaskEnd ||
          signal.aborted ||
          expired ||
          options.transient?.(err) !== true ||
          ++failures >= MAX_POLL_FAILURES
        )
          throw err;
        continue;
      }
      polledAt = now();
      report(task);
      interval = task.pollIntervalMs ?? interval;
      ttlMs = task.ttlMs;
      latest = {
        requestId: seed.requestId,
        taskId,
        createdAt: seed.createdAt,
        status: task.status,
        ttlMs: task.ttlMs,
        ...(task.statusMessage !== undefined ? { statusMessage: redact(task.statusMessage) } : {}),
        ...(interval !== undefined ? { pollIntervalMs: interval } : {}),
      };
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
          throw new TaskEnd(failedError(ids, task, redact), false);
        case 'cancelled':
          throw new TaskEnd(
            new ToolError(
              'TOOL_EXECUTION_FAILED',
              `Server '${server}' cancelled the task of '${toolName}' (${taskId})${task.statusMessage ? `: ${redact(task.statusMessage)}` : ''}.`,
              { toolName: options.toolName, details: { server, taskId, reason: 'task-cancelled' } },
            ),
            false,
          );
        case 'input_required':
          await answer(channel, task.inputRequests, options, ids);
          break;
        default:
          break;
      }
      if (ttlMs !== null && now() > acceptedAt + ttlMs)
        // given up while it may still run: cancelled once (the server may have purged it)
        throw new TaskEnd(
          unknownOutcome(
            ids,
            'task-expired',
            `was still ${task.status} when its time to live (ttlMs ${ttlMs}) ran out`,
          ),
          true,
        );
      if (options.lastPoll)
        // its wait expired: given up after this one last poll (cancelled once)
        throw new TaskEnd(
          unknownOutcome(
            ids,
            'task-expired',
            `was still ${task.status} at its last poll: its wait passed waits.ttlMs`,
            { waitExpired: true },
          ),
          true,
        );
      const parkAt = options.park?.at;
      if (parkAt !== undefined && task.status === 'working' && now() >= parkAt)
        throw new TaskStillRunning(latest, acceptedAt, undefined, polledAt);
    }
  } catch (err) {
    if (err instanceof TaskStillRunning) throw err;
    // a person answers the task's input later: the call parks, nothing cancelled
    if (err instanceof TaskInputParked && !signal.aborted)
      throw new TaskStillRunning(latest, acceptedAt, err.input, polledAt);
    // an abort that is no cancel (an agent's close) parks the call where it may
    if (signal.aborted && options.park?.onAbort?.(signal.reason) === true)
      throw new TaskStillRunning(latest, acceptedAt, undefined, polledAt);
    const end = signal.aborted
      ? new TaskEnd(aborted(signal, ids), cancelsOn(options.cancelOnAbort, signal.reason))
      : err instanceof TaskEnd
        ? err
        : new TaskEnd(err, true);
    if (end.cancel) channel.cancel(taskId);
    throw end.error;
  }
}

/** Whether an abort with `reason` cancels the task. */
function cancelsOn(rule: TaskPollOptions['cancelOnAbort'], reason: unknown): boolean {
  if (rule === undefined) return true;
  return typeof rule === 'function' ? rule(reason) : rule;
}

/** Who a poller's errors name. */
interface TaskIds {
  readonly server: string;
  readonly taskId: string;
  /** Redacted, for messages. */
  readonly toolName: string;
  /** As given, for the error's `toolName` (as the call's other errors carry it). */
  readonly name: string;
}

/** An ending whose outcome is unknown: the task may still have done its work. */
function unknownOutcome(
  ids: TaskIds,
  reason: 'timeout' | 'task-expired' | 'task-not-found',
  what: string,
  more: Readonly<Record<string, unknown>> = {},
  cause?: unknown,
): ToolError {
  return new ToolError(
    'TOOL_OUTCOME_UNKNOWN',
    `The task of '${ids.toolName}' on server '${ids.server}' (${ids.taskId}) ${what}. The call may or may not have taken effect; it was not retried.`,
    {
      toolName: ids.name,
      ...(cause !== undefined ? { cause } : {}),
      details: { server: ids.server, taskId: ids.taskId, reason, ...more },
    },
  );
}

/** Answers a task's outstanding input requests (the new keys) with one `tasks/update`. */
async function answer(
  channel: TaskChannel,
  inputRequests: Readonly<Record<string, unknown>>,
  options: TaskPollOptions,
  ids: TaskIds,
): Promise<void> {
  if (!options.answerInput)
    throw new TaskEnd(
      new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The task of '${ids.toolName}' on server '${ids.server}' (${ids.taskId}) asked for input, and nothing here answers a task's input requests.`,
        {
          toolName: ids.name,
          details: { server: ids.server, taskId: ids.taskId, reason: 'no-input-handler' },
        },
      ),
      true,
    );
  const responses = await options.answerInput(inputRequests, options.signal);
  if (Object.keys(responses).length === 0) return;
  await ended(
    channel.update(ids.taskId, responses, options.signal),
    options.signal,
    ids,
    options,
    false,
  );
}

/**
 * A request of the poll, its failure read on typed facts: `-32602` to a `tasks/get` means the
 * server does not know the task (its id is gone: the outcome is unknown, and there is
 * nothing to cancel). To a `tasks/update` it is a refusal of the answers, a failed request.
 */
async function ended<T>(
  request: Promise<T>,
  signal: AbortSignal,
  ids: TaskIds,
  options: TaskPollOptions,
  isGet: boolean,
): Promise<T> {
  try {
    return await request;
  } catch (err) {
    if (signal.aborted || !isGet) throw err;
    const fact = clientErrorOf(err);
    if (fact?.kind === 'protocol' && fact.code === -32602)
      throw new TaskEnd(
        unknownOutcome(
          ids,
          'task-not-found',
          'is no longer known to the server (it answered -32602): it may have expired or been purged',
          {},
          options.redactCause ? options.redactCause(err) : err,
        ),
        false,
      );
    throw err;
  }
}

/** A `failed` task as the tool's error: its JSON-RPC error, or the status message when none. */
function failedError(
  ids: TaskIds,
  task: DetailedTask & { status: 'failed' },
  redact: (text: string) => string,
): ToolError {
  const error = task.error;
  const why = redact(error?.message ?? task.statusMessage ?? 'the server gave no error');
  return new ToolError(
    'TOOL_EXECUTION_FAILED',
    `The task of '${ids.toolName}' on server '${ids.server}' (${ids.taskId}) failed: ${why}`,
    {
      toolName: ids.name,
      details: {
        server: ids.server,
        taskId: ids.taskId,
        reason: 'task-failed',
        ...(error?.code !== undefined ? { protocolCode: error.code } : {}),
      },
    },
  );
}

function aborted(signal: AbortSignal, ids: TaskIds): Error {
  return abortedError(`The task of '${ids.toolName}' (${ids.taskId})`, signal.reason);
}
