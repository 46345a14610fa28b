import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  McpError,
  SessionError,
  ToolError,
  isAgentClosed,
  redactedCause,
} from '../../errors/index.js';
import type { SecretRegistry } from '../../util/index.js';
import type { McpConnection } from '../client/mcp-connection.js';
import type { McpOptions } from '../contracts/config-types.js';
import type { ClientRequestHandler } from '../contracts/connection-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import { TaskStillRunning } from '../contracts/task-types.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { classifyCallError } from '../failures/mcp-errors.js';
import { clientErrorOf } from '../failures/client-errors.js';
import { timeoutOf, wasNotSent } from '../failures/failure-reasons.js';
import type { TaskChannel, TaskInputAnswerer, TaskStatusReport } from '../tasks/index.js';
import type * as TasksRoom from '../tasks/index.js';

/**
 * The tasks room, loaded at the first task: its schemas are zod's, which importing Muster
 * does not load (most calls never become tasks).
 */
let tasksRoom: Promise<typeof TasksRoom> | undefined;
const loadTasks = () => (tasksRoom ??= import('../tasks/index.js'));

/** One request on the live connection of a server (the runner's `withConnection`). */
export type WithConnection = <T>(
  server: string,
  operation: (
    connection: McpConnection,
    bounds: { signal: AbortSignal; timeoutMs: number },
  ) => Promise<T>,
  options: { signal: AbortSignal; timeoutMs?: number },
) => Promise<T>;

/** What following the task of one call needs. */
export interface FollowOptions {
  readonly toolName?: string;
  readonly signal: AbortSignal;
  /** The per-request bound of each `tasks/*` request (the call's `timeoutMs`). */
  readonly timeoutMs?: number;
  /** The call's total deadline, counted from `startedAt`: polling ends at it. */
  readonly maxTotalTimeoutMs?: number;
  /** When the call was sent (ms since the epoch; default now). */
  readonly startedAt?: number;
  /** Told of the task's seed status and of every change (a `tool.task` event). */
  readonly onTask?: (report: TaskStatusReport) => void;
  /** Answers the task's input requests; default: the server's handlers. */
  readonly answerInput?: TaskInputAnswerer;
  /**
   * Where the call may park on its task (a run whose store keeps waits, SPEC 15.3): a task
   * still `working` `afterMs` after polling began (for a `resumed` task: after it was
   * accepted, so a resume past that polls once and parks again), or an abort whose reason
   * `onAbort` accepts (an agent's close), ends the poll with `TaskStillRunning`, nothing
   * cancelled.
   */
  readonly park?: {
    readonly afterMs?: number;
    readonly onAbort?: (reason: unknown) => boolean;
  };
  /**
   * Awaited before the first poll with the task and when its answer was read: commits the
   * handle (a `task` wait). A failure ends the call and cancels the task.
   */
  readonly onAccepted?: (task: CapturedTask, acceptedAt: number) => Promise<void>;
  /**
   * A task resumed from its wait: polled at once, its ttl counted from `acceptedAt` (ms since
   * the epoch); with `lastPoll` (the wait expired), polled once only.
   */
  readonly resumed?: {
    readonly acceptedAt: number;
    readonly lastPoll: boolean;
    /** When its status was last read with `tasks/get` (ms since the epoch), if ever. */
    readonly polledAt?: number;
    /** Answers to the task's input requests given while parked: sent before the first poll. */
    readonly answers?: Readonly<Record<string, unknown>>;
  };
  /**
   * Whether an abort sends `tasks/cancel` (default: every abort but an agent's close, which
   * never cancels; false for a host's handle, which cancels itself).
   */
  readonly cancelOnAbort?: boolean;
}

/** A task's handle as its wait stored it, to poll on (see {@link TaskCalls.resume}). */
export interface ResumedTask {
  readonly taskId: string;
  readonly status: string;
  readonly statusMessage?: string;
  readonly createdAt: string;
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** ISO 8601: when the task answer was read (the ttl's anchor). */
  readonly acceptedAt: string;
  /** ISO 8601: when `status` was last read with `tasks/get`; absent: never polled. */
  readonly polledAt?: string;
  /** Its wait passed `waits.ttlMs`: one last poll. */
  readonly expired: boolean;
  /** Its wait was decided `cancel`: one `tasks/cancel`, no poll, an unknown outcome. */
  readonly cancelled?: { readonly waitId: string; readonly reason?: string };
}

/** What the task side of the runner is built with. */
export interface TaskCallsDeps {
  readonly withConnection: WithConnection;
  readonly options: McpOptions;
  readonly secretsOf: (server: string) => SecretRegistry;
  /** The request handlers of a server's connections, for a task's input requests. */
  readonly handlersOf?: (server: string) => readonly ClientRequestHandler[];
  /** Ends with the runner: cancels in flight stop waiting. */
  readonly lifetime: AbortSignal;
  /**
   * Where the `tasks/cancel` requests in flight are kept for {@link TaskCalls.settle} (default:
   * this instance's own): the task calls of principals' connections share one.
   */
  readonly cancels?: Set<Promise<void>>;
}

/** How long closing waits for the `tasks/cancel` requests already sent. */
export const CANCEL_SETTLE_MS = 2_000;

/**
 * True when the run lost its session's lease (the abort reason a lost lease gives its run,
 * `SESSION_ALREADY_RUNNING`): the run stops here, and the session's next owner (a resume,
 * another replica) polls the task its `task` wait holds.
 */
function leaseLost(reason: unknown): boolean {
  return SessionError.isInstance(reason) && reason.code === 'SESSION_ALREADY_RUNNING';
}

/**
 * True for an abort that hands a task on rather than giving it up (SPEC 15.3): an agent's
 * close (its run parks on the task) or a lost lease (the session's next owner polls on).
 * Neither sends `tasks/cancel`.
 */
function handsTaskOn(reason: unknown): boolean {
  return isAgentClosed(reason) || leaseLost(reason);
}

/**
 * True for a failed `tasks/get` worth another poll, on typed facts: it was not sent, it timed
 * out, or the HTTP server answered 5xx. A refusal (401, 403, a JSON-RPC error) is not.
 */
export function transientPollFailure(err: unknown): boolean {
  if (wasNotSent(err) || timeoutOf(err) !== undefined) return true;
  const fact = clientErrorOf(err);
  if (fact?.kind !== 'sdk') return false;
  return fact.code === 'REQUEST_TIMEOUT' || (fact.status !== undefined && fact.status >= 500);
}

/**
 * The calls that became tasks (SPEC 15.3): each followed to its end through the server's
 * live connection (a task outlives the connection that created it, so every `tasks/*`
 * request finds the current one, reconnects and renewed sessions included), and each given
 * up while it may still run cancelled once, in the background (never for an agent's close).
 * A lost lease cancels nothing either: the task's wait stays in the session for its next run.
 * Polling failures are the call's: whatever ends the poll that is not the poller's own
 * verdict on the task (a lost connection, a refused or invalid `tasks/get`) cannot make the
 * call "not sent" or "refused": the task exists, so its outcome is unknown.
 */
export class TaskCalls {
  /** `tasks/cancel` requests in flight, so that closing lets them finish. */
  readonly #cancels: Set<Promise<void>>;

  constructor(private readonly deps: TaskCallsDeps) {
    this.#cancels = deps.cancels ?? new Set();
  }

  /**
   * Polls the task of `tool`'s call on `server` to its end (see `pollTask`) and gives its
   * result as the call's, checked against the tool's output schema on `connection` (the live
   * one when undefined: a resumed task) as a direct answer would be. Failures are tool errors
   * naming the task (`details.taskId`); a park ends with `TaskStillRunning`.
   */
  async follow(
    server: string,
    tool: string,
    task: CapturedTask,
    connection: McpConnection | undefined,
    options: FollowOptions,
  ): Promise<CallToolResult> {
    const toolName = options.toolName ?? tool;
    const secrets = this.deps.secretsOf(server);
    const handlersOf = this.deps.handlersOf;
    const bounds = this.deps.options.tasks;
    const timeoutMs = options.timeoutMs ?? this.deps.options.operation?.timeoutMs;
    const maxTotal = options.maxTotalTimeoutMs;
    const redact = (text: string) => secrets.redact(text);
    // the connection the last poll went out on: a server that forgets the task after a
    // session renewal is told apart from one that purged it
    let polledOn = connection;
    const { park, resumed, onAccepted } = options;
    try {
      const { pollTask, taskInputAnswerer } = await loadTasks();
      const result = await pollTask(
        this.channel(server, timeoutMs, (c) => (polledOn = c)),
        task,
        {
          server,
          toolName,
          minPollIntervalMs: bounds?.minPollIntervalMs ?? MCP_DEFAULTS.tasks.minPollIntervalMs,
          maxPollIntervalMs: bounds?.maxPollIntervalMs ?? MCP_DEFAULTS.tasks.maxPollIntervalMs,
          signal: options.signal,
          redact,
          redactCause: (err) => redactedCause(err, secrets.values()),
          transient: transientPollFailure,
          cancelOnAbort: options.cancelOnAbort === false ? false : (reason) => !handsTaskOn(reason),
          ...(maxTotal !== undefined
            ? { total: { at: (options.startedAt ?? Date.now()) + maxTotal, limitMs: maxTotal } }
            : {}),
          ...(options.onTask ? { onStatus: options.onTask } : {}),
          ...(park
            ? {
                park: {
                  // a resumed task's time in process counts from when it was accepted: past
                  // it, the resume polls once at once and parks again while it still works
                  ...(park.afterMs !== undefined
                    ? { at: (resumed?.acceptedAt ?? Date.now()) + park.afterMs }
                    : {}),
                  ...(park.onAbort ? { onAbort: park.onAbort } : {}),
                },
              }
            : {}),
          ...(resumed
            ? {
                acceptedAt: resumed.acceptedAt,
                pollFirst: true,
                // the run that parked it reported its stored status: a resume reports changes
                seedReported: true,
                lastPoll: resumed.lastPoll,
                ...(resumed.polledAt !== undefined ? { polledAt: resumed.polledAt } : {}),
                ...(resumed.answers ? { initialAnswers: resumed.answers } : {}),
              }
            : {}),
          ...(onAccepted ? { onAccepted: (at: number) => onAccepted(task, at) } : {}),
          ...(options.answerInput
            ? { answerInput: options.answerInput }
            : handlersOf
              ? {
                  answerInput: taskInputAnswerer({
                    server,
                    toolName,
                    taskId: task.taskId,
                    redact,
                    handlers: () => handlersOf(server),
                    // a person may answer later where the run can park
                    canPark: park !== undefined,
                    ...(resumed?.answers ? { answered: Object.keys(resumed.answers) } : {}),
                  }),
                }
              : {}),
        },
      );
      if (connection) await connection.checkTaskResult(tool, result);
      else
        await this.deps.withConnection(server, (c) => c.checkTaskResult(tool, result), {
          signal: options.signal,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        });
      return result;
    } catch (err) {
      if (err instanceof TaskStillRunning) throw err;
      const other = connection !== undefined && polledOn !== connection;
      throw this.#outcome(err, server, toolName, task.taskId, options, other);
    }
  }

  /**
   * Follows a task a call became in an earlier run (its `task` wait, SPEC 15.3): the call is
   * not sent again; the task is polled at once, then on (once only when its wait expired).
   * A task whose wait was decided `cancel` is not polled: its `tasks/cancel` is sent, at most
   * once per resume (awaited, its failure swallowed and not retried: cancellation is
   * cooperative; a crash after the send leaves the wait to a resume that sends another), and
   * the call ends
   * `TOOL_OUTCOME_UNKNOWN`, reason `aborted`, `details.taskCancelled`.
   */
  async resume(
    server: string,
    tool: string,
    stored: ResumedTask,
    options: Omit<FollowOptions, 'resumed' | 'onAccepted'>,
    answers?: Readonly<Record<string, unknown>>,
  ): Promise<CallToolResult> {
    if (stored.cancelled) {
      const timeoutMs = options.timeoutMs ?? this.deps.options.operation?.timeoutMs;
      await this.cancel(server, stored.taskId, timeoutMs);
      const toolName = options.toolName ?? tool;
      const name = this.deps.secretsOf(server).redact(toolName);
      const { waitId, reason } = stored.cancelled;
      throw new ToolError(
        'TOOL_OUTCOME_UNKNOWN',
        `The task of '${name}' on server '${server}' (${stored.taskId}) was cancelled by a decision of its wait '${waitId}'${reason !== undefined ? ` (${reason})` : ''}: tasks/cancel was sent (a send that failed is not retried). The call may or may not have taken effect; it was not retried.`,
        {
          toolName,
          details: {
            server,
            taskId: stored.taskId,
            reason: 'aborted',
            taskCancelled: true,
            waitId,
          },
        },
      );
    }
    const acceptedAt = Date.parse(stored.acceptedAt);
    // the seed's status was read then: a park before a fresh poll answers keeps it
    const polledAt = stored.polledAt === undefined ? NaN : Date.parse(stored.polledAt);
    const seed: CapturedTask = {
      requestId: 0,
      taskId: stored.taskId,
      status: stored.status,
      ...(stored.statusMessage !== undefined ? { statusMessage: stored.statusMessage } : {}),
      createdAt: stored.createdAt,
      ttlMs: stored.ttlMs,
      ...(stored.pollIntervalMs !== undefined ? { pollIntervalMs: stored.pollIntervalMs } : {}),
    };
    return this.follow(server, tool, seed, undefined, {
      ...options,
      resumed: {
        acceptedAt: Number.isNaN(acceptedAt) ? Date.now() : acceptedAt,
        lastPoll: stored.expired,
        ...(Number.isNaN(polledAt) ? {} : { polledAt }),
        ...(answers ? { answers } : {}),
      },
    });
  }

  /**
   * The error a followed call ends with: the poller's and the output check's own verdicts
   * stand (one of an unknown task polled on another connection than the one that created it
   * says the session may have changed); an abort is an unknown outcome (its task cancelled,
   * or left running on an agent's close); anything else happened to a request about a task
   * that exists: `TOOL_OUTCOME_UNKNOWN`, with the original failure as its cause.
   */
  #outcome(
    err: unknown,
    server: string,
    toolName: string,
    taskId: string,
    options: FollowOptions,
    otherConnection: boolean,
  ): ToolError {
    const secrets = this.deps.secretsOf(server);
    const name = secrets.redact(toolName);
    const unknown = (
      reason: 'aborted' | 'disconnected' | 'timeout' | 'unknown' | 'task-not-found',
      text: string,
      more: Readonly<Record<string, unknown>> = {},
    ) =>
      new ToolError(
        'TOOL_OUTCOME_UNKNOWN',
        `${text} The call may or may not have taken effect; it was not retried.`,
        {
          toolName,
          cause: redactedCause(err, secrets.values()),
          details: { server, taskId, reason, ...more },
        },
      );
    if (ToolError.isInstance(err) && err.details.reason !== 'not-sent') {
      if (err.details.reason === 'task-not-found' && otherConnection)
        return unknown(
          'task-not-found',
          `Server '${server}' no longer knows the task of '${name}' (${taskId}; it answered -32602). Its connection was renewed since the task was created: a server that keeps tasks per session lost it then; else it expired or was purged.`,
          { sessionChanged: true },
        );
      return err;
    }
    if (options.signal.aborted) {
      const reason = options.signal.reason;
      const handedOn = options.cancelOnAbort !== false && handsTaskOn(reason);
      const by = isAgentClosed(reason)
        ? "the agent's close"
        : "the loss of the session's lease (the session's next run polls it on)";
      return unknown(
        'aborted',
        handedOn
          ? `The call to '${name}' was interrupted by ${by}; its task (${taskId}) was left running on server '${server}', not cancelled.`
          : `The call to '${name}' was cancelled by an abort (its task ${taskId}).`,
        { taskCancelled: !handedOn && options.cancelOnAbort !== false },
      );
    }
    const decided = classifyCallError(err, {
      toolName,
      server,
      signal: options.signal,
      timeoutMs:
        options.timeoutMs ?? this.deps.options.operation?.timeoutMs ?? MCP_DEFAULTS.timeoutMs,
      secrets,
    });
    if (decided.code === 'TOOL_OUTCOME_UNKNOWN') {
      const { reason, ...more } = decided.details;
      return new ToolError('TOOL_OUTCOME_UNKNOWN', decided.message, {
        toolName,
        cause: redactedCause(err, secrets.values()),
        details: { ...more, server, taskId, reason: reason ?? 'unknown' },
      });
    }
    const failure = decided.details.reason;
    return unknown(
      failure === 'not-sent' ? 'disconnected' : 'unknown',
      `Following the task of '${name}' on server '${server}' (${taskId}) failed: ${decided.message}`,
      { failure: { code: decided.code, ...(failure !== undefined ? { reason: failure } : {}) } },
    );
  }

  /**
   * For a call answered with a malformed task that carries its id (`invalid-response` on
   * `tools/call` with `details.taskId`, typed facts): sends its `tasks/cancel` once and
   * gives the call's error, `TOOL_OUTCOME_UNKNOWN` with the invalid response as its cause.
   * Undefined for any other failure.
   */
  malformed(
    err: unknown,
    server: string,
    toolName: string,
    timeoutMs: number | undefined,
  ): ToolError | undefined {
    if (!McpError.isInstance(err) || err.details.reason !== 'invalid-response') return undefined;
    const { method, taskId } = err.details;
    if (method !== 'tools/call' || typeof taskId !== 'string') return undefined;
    void this.cancel(server, taskId, timeoutMs);
    const secrets = this.deps.secretsOf(server);
    return new ToolError(
      'TOOL_OUTCOME_UNKNOWN',
      `Server '${server}' made a task of the call to '${secrets.redact(toolName)}' (${taskId}) but answered it in a shape the Tasks extension does not define; the task was cancelled. The call may or may not have taken effect; it was not retried.`,
      {
        toolName,
        cause: redactedCause(err, secrets.values()),
        details: {
          server,
          taskId,
          reason: 'unknown',
          failure: { code: err.code, reason: 'invalid-response' },
        },
      },
    );
  }

  /**
   * The `tasks/*` requests of `server`, each on its live connection (`onConnection` is told
   * which one each `tasks/get` went out on).
   */
  channel(
    server: string,
    timeoutMs: number | undefined,
    onConnection?: (connection: McpConnection) => void,
  ): TaskChannel {
    const { withConnection } = this.deps;
    const bound = timeoutMs !== undefined ? { timeoutMs } : {};
    return {
      get: async (taskId, signal) => {
        const { getTask } = await loadTasks();
        return withConnection(
          server,
          (c, b) => {
            onConnection?.(c);
            return getTask(c, taskId, b);
          },
          { signal, ...bound },
        );
      },
      update: async (taskId, responses, signal) => {
        const { updateTask } = await loadTasks();
        await withConnection(server, (c, b) => updateTask(c, taskId, responses, b), {
          signal,
          ...bound,
        });
      },
      cancel: (taskId) => void this.cancel(server, taskId, timeoutMs),
    };
  }

  /**
   * Sends `tasks/cancel` for a task given up (the caller sends it once): bounded by
   * `timeoutMs` and the runner's lifetime, its failure swallowed (cancellation is
   * cooperative: the call's outcome is unknown either way). Resolves when it is answered.
   */
  cancel(server: string, taskId: string, timeoutMs?: number): Promise<void> {
    const sent = loadTasks()
      .then(({ cancelTask }) =>
        this.deps.withConnection(server, (c, b) => cancelTask(c, taskId, b), {
          signal: this.deps.lifetime,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        }),
      )
      .catch(() => undefined)
      .finally(() => this.#cancels.delete(sent));
    this.#cancels.add(sent);
    return sent;
  }

  /**
   * Waits for the `tasks/cancel` requests in flight, at most `boundMs` (default
   * {@link CANCEL_SETTLE_MS}): closing is never held up by a slow server for long.
   */
  settle(boundMs = CANCEL_SETTLE_MS): Promise<void> {
    return settleCancels(this.#cancels, boundMs);
  }
}

/**
 * Waits for the `tasks/cancel` requests in `cancels`, at most `boundMs` (default
 * {@link CANCEL_SETTLE_MS}).
 */
export async function settleCancels(
  cancels: ReadonlySet<Promise<void>>,
  boundMs = CANCEL_SETTLE_MS,
): Promise<void> {
  if (cancels.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, boundMs);
    timer.unref?.();
  });
  try {
    await Promise.race([Promise.allSettled([...cancels]), bound]);
  } finally {
    clearTimeout(timer);
  }
}
