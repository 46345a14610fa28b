import type { CallToolResult } from '@modelcontextprotocol/client';
import { ToolError } from '../../errors/index.js';
import type { SecretRegistry } from '../../util/index.js';
import type { McpConnection } from '../client/mcp-connection.js';
import type { McpOptions } from '../contracts/config-types.js';
import type { ClientRequestHandler } from '../contracts/connection-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { classifyCallError } from '../failures/mcp-errors.js';
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
  /** Told of the task's seed status and of every change (a `tool.task` event). */
  readonly onTask?: (report: TaskStatusReport) => void;
  /** Answers the task's input requests; default: the server's handlers. */
  readonly answerInput?: TaskInputAnswerer;
  /** Whether an abort sends `tasks/cancel` (default true; a host's handle cancels itself). */
  readonly cancelOnAbort?: boolean;
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
}

/**
 * The calls that became tasks (SPEC 15.3): each followed to its end through the server's
 * live connection (a task outlives the connection that created it, so every `tasks/*`
 * request finds the current one, reconnects and renewed sessions included), and each given
 * up while it may still run cancelled once, in the background. Polling failures are the
 * call's: a `tasks/get` that was not sent, or that the server refused, cannot make the call
 * "not sent" or "refused" (the task exists): its outcome is unknown.
 */
export class TaskCalls {
  /** `tasks/cancel` requests in flight, so that closing lets them finish. */
  readonly #cancels = new Set<Promise<void>>();

  constructor(private readonly deps: TaskCallsDeps) {}

  /**
   * Polls the task of `tool`'s call on `server` to its end (see `pollTask`) and gives its
   * result as the call's, checked against the tool's output schema on `connection` as a
   * direct answer would be. Failures are tool errors, classified like the call's.
   */
  async follow(
    server: string,
    tool: string,
    task: CapturedTask,
    connection: McpConnection,
    options: FollowOptions,
  ): Promise<CallToolResult> {
    const toolName = options.toolName ?? tool;
    const secrets = this.deps.secretsOf(server);
    const handlersOf = this.deps.handlersOf;
    const bounds = this.deps.options.tasks;
    const timeoutMs = options.timeoutMs ?? this.deps.options.operation?.timeoutMs;
    try {
      const { pollTask, taskInputAnswerer } = await loadTasks();
      const result = await pollTask(this.channel(server, timeoutMs), task, {
        server,
        toolName,
        minPollIntervalMs: bounds?.minPollIntervalMs ?? MCP_DEFAULTS.tasks.minPollIntervalMs,
        maxPollIntervalMs: bounds?.maxPollIntervalMs ?? MCP_DEFAULTS.tasks.maxPollIntervalMs,
        signal: options.signal,
        redact: (text) => secrets.redact(text),
        ...(options.cancelOnAbort === false ? { cancelOnAbort: false } : {}),
        ...(options.onTask ? { onStatus: options.onTask } : {}),
        ...(options.answerInput
          ? { answerInput: options.answerInput }
          : handlersOf
            ? {
                answerInput: taskInputAnswerer({
                  server,
                  toolName,
                  handlers: () => handlersOf(server),
                }),
              }
            : {}),
      });
      await connection.checkTaskResult(tool, result);
      return result;
    } catch (err) {
      const decided = classifyCallError(err, {
        toolName,
        server,
        signal: options.signal,
        timeoutMs: timeoutMs ?? MCP_DEFAULTS.timeoutMs,
        secrets,
      });
      // the poller's and the output check's own verdicts stand; the rest happened to a
      // request about a task that exists: the call's outcome is unknown
      if (ToolError.isInstance(err) || decided.code !== 'TOOL_EXECUTION_FAILED') throw decided;
      throw new ToolError(
        'TOOL_OUTCOME_UNKNOWN',
        `Following the task of '${toolName}' on server '${server}' (${task.taskId}) failed: ${decided.message} The call may or may not have taken effect; it was not retried.`,
        {
          toolName,
          cause: decided,
          details: {
            server,
            taskId: task.taskId,
            reason: decided.details.reason === 'not-sent' ? 'disconnected' : 'unknown',
          },
        },
      );
    }
  }

  /** The `tasks/*` requests of `server`, each on its live connection. */
  channel(server: string, timeoutMs: number | undefined): TaskChannel {
    const { withConnection } = this.deps;
    const bound = timeoutMs !== undefined ? { timeoutMs } : {};
    return {
      get: async (taskId, signal) => {
        const { getTask } = await loadTasks();
        return withConnection(server, (c, b) => getTask(c, taskId, b), { signal, ...bound });
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

  /** Waits for the `tasks/cancel` requests in flight (each bounded by its timeout). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#cancels]);
  }
}
