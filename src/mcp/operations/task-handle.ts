import type { CallToolResult } from '@modelcontextprotocol/client';
import type { SecretRegistry } from '../../util/index.js';
import type { OperationRunner, StartedCall } from '../connection/operation-runner.js';
import type { McpTaskHandle, McpTaskState } from '../contracts/operation-types.js';
import type { CapturedTask } from '../contracts/task-types.js';
import { operationFailure } from '../failures/mcp-errors.js';

/** A call the server answered at once, as a completed handle. */
export function completedHandle(result: CallToolResult): McpTaskHandle {
  return {
    taskId: undefined,
    status: () => Promise.resolve({ status: 'completed' }),
    result: () => Promise.resolve(result),
    cancel: () => Promise.resolve(),
  };
}

/** What a handle of a task needs. */
export interface TaskHandleInit {
  readonly runner: OperationRunner;
  readonly server: string;
  readonly tool: string;
  readonly started: StartedCall & { readonly answer: { readonly task: CapturedTask } };
  readonly secrets: SecretRegistry;
  /** The host's signal of the call: an abort cancels the task. */
  readonly signal?: AbortSignal;
}

/** The statuses after which a task changes no more. */
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The handle of a call a server made a task of (`callTool(..., { task: true })`, SPEC 15.3):
 * `result()` follows the task once (however often it is called), `status()` asks the server,
 * `cancel()` (or an abort of the call's signal, already aborted included) sends
 * `tasks/cancel` once. The abort listener holds the handle weakly (a host's long-lived signal
 * does not keep a forgotten handle), and is removed once the task ended.
 */
export class TaskHandle implements McpTaskHandle {
  readonly taskId: string;
  readonly #init: TaskHandleInit;
  /** Ends the poll when the handle is cancelled (the handle sends the cancel itself). */
  readonly #stop = new AbortController();
  #result: Promise<CallToolResult> | undefined;
  #cancelled: Promise<void> | undefined;
  #last: McpTaskState;
  /** The task reached a terminal status: nothing to ask the server any more. */
  #ended = false;
  /** `result()` settled: its poll is over (the task may still run after a failed one). */
  #settled = false;
  readonly #onAbort: () => void;

  constructor(init: TaskHandleInit) {
    this.#init = init;
    const task = init.started.answer.task;
    this.taskId = task.taskId;
    this.#last = {
      status: task.status,
      ...(task.statusMessage !== undefined
        ? { statusMessage: init.secrets.redact(task.statusMessage) }
        : {}),
    };
    const self = new WeakRef(this);
    this.#onAbort = () => void self.deref()?.cancel();
    if (init.signal?.aborted) void this.cancel();
    else init.signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /**
   * The task's status now (one `tasks/get`, also after `cancel()`: cancellation is
   * cooperative), or its last known one once it ended.
   */
  async status(): Promise<McpTaskState> {
    if (this.#ended) return this.#last;
    const { runner, server, started, secrets } = this.#init;
    try {
      // its own signal: a cancelled handle still asks the server
      const task = await runner.tasks
        .channel(server, started.timeoutMs)
        .get(this.taskId, new AbortController().signal);
      this.#last = {
        status: task.status,
        ...(task.statusMessage !== undefined
          ? { statusMessage: secrets.redact(task.statusMessage) }
          : {}),
      };
      if (TERMINAL.has(task.status)) this.#unlisten();
      return this.#last;
    } catch (err) {
      throw operationFailure(server, `Reading task ${this.taskId}`, err, secrets);
    }
  }

  /** The call's result: the task followed once to its end, however often this is called. */
  result(): Promise<CallToolResult> {
    const { runner, server, tool, started } = this.#init;
    this.#result ??= runner.tasks
      .follow(server, tool, started.answer.task, started.connection, {
        signal: this.#stop.signal,
        timeoutMs: started.timeoutMs,
        startedAt: started.startedAt,
        ...(started.maxTotalTimeoutMs !== undefined
          ? { maxTotalTimeoutMs: started.maxTotalTimeoutMs }
          : {}),
        cancelOnAbort: false,
        onTask: (report) => {
          this.#last = {
            status: report.status,
            ...(report.statusMessage !== undefined ? { statusMessage: report.statusMessage } : {}),
          };
        },
      })
      .finally(() => {
        this.#settled = true;
        if (TERMINAL.has(this.#last.status)) this.#ended = true;
        this.#unlisten();
      });
    return this.#result;
  }

  /**
   * Sends `tasks/cancel` once; resolves when the server acknowledged it (or gave up). Nothing
   * once the poll of `result()` is over (it ended, or cancelled the task it gave up).
   */
  cancel(): Promise<void> {
    if (this.#ended || this.#settled) return Promise.resolve();
    this.#cancelled ??= (() => {
      this.#unlisten();
      const { runner, server, started } = this.#init;
      const sent = runner.tasks.cancel(server, this.taskId, started.timeoutMs);
      this.#stop.abort();
      return sent;
    })();
    return this.#cancelled;
  }

  #unlisten(): void {
    this.#init.signal?.removeEventListener('abort', this.#onAbort);
  }
}
