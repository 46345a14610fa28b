import type { CallToolResult, RequestOptions, Tool as McpTool } from '@modelcontextprotocol/client';
import { McpError, MusterError, abortedError, redactedCause } from '../../errors/index.js';
import type { McpErrorCode, MusterErrorCode } from '../../errors/index.js';
import { SecretRegistry, raceAbort } from '../../util/index.js';
import { operationFailure } from '../failures/mcp-errors.js';
import type { McpConnection } from '../client/mcp-connection.js';
import type { OperationRunner, ResolvedOperationOptions } from '../connection/operation-runner.js';
import type {
  McpCallToolOptions,
  McpOperationOptions,
  McpTaskHandle,
} from '../contracts/operation-types.js';
import { TaskHandle, completedHandle } from './task-handle.js';
import type { ToolProgress } from '../../tools/index.js';
import { checkDirectArguments } from './direct-call-arguments.js';
import { requiresTasks } from '../connection/mcp-discovery.js';
import { withRetry } from '../connection/retry.js';
import type { OperationKind } from '../connection/retry.js';
import type { ServerEntry } from '../connection/server-entry.js';
import { unknownServerError } from '../connection/server-registry.js';
import type { ServerRegistry } from '../connection/server-registry.js';

/** One request on a live connection, with its resolved bounds. */
export type Operation<T> = (
  connection: McpConnection,
  request: RequestOptions,
  bounds: ResolvedOperationOptions,
) => Promise<T>;

/**
 * Runs the operations of `agent.mcp` and `McpClientManager` (everything but the model's tool
 * calls): the connection from the runner (connected on first use, inside every attempt and
 * within the caller's signal and `timeoutMs`), the bounds resolved, retries where allowed,
 * and failures as Muster errors whose messages carry no secrets.
 */
export class OperationContext {
  /** Connects a server that is not connected yet (set by the operations facade). */
  connect?: (server: string) => Promise<void>;

  constructor(
    private readonly runner: OperationRunner,
    private readonly registry: ServerRegistry,
    private readonly lifetime: AbortSignal,
  ) {}

  /** The registry entry of `server`, for the session state operations record. */
  entry(server: string): ServerEntry | undefined {
    return this.registry.get(server);
  }

  /** Runs `op` on `server`; `kind` decides whether `options.retry` may apply. */
  run<T>(
    server: string,
    what: string,
    kind: OperationKind,
    options: McpOperationOptions | undefined,
    op: Operation<T>,
  ): Promise<T> {
    return this.#attempts(server, what, kind, options, (signal) =>
      this.runner
        .withConnection(server, (c, bounds) => op(c, requestOptions(bounds), bounds), {
          signal,
          ...bounds(options),
        })
        .catch((err: unknown) => {
          throw this.#failure(server, what, err, signal);
        }),
    );
  }

  /**
   * Calls a tool for the host, classified like the model's calls: `TOOL_OUTCOME_UNKNOWN` when
   * it may have run (timeout, disconnect, lost stream), `TOOL_EXECUTION_FAILED` when the server
   * refused it or it was not sent. Retried only with `retryNonIdempotent`, or when not sent.
   * Like a model's call, its arguments are checked against the input schema the server listed
   * first (listed once when the connection holds no listing), and progress resets its timeout
   * (asked for when `options.onProgress` is given).
   */
  callTool(
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallToolOptions | undefined,
  ): Promise<CallToolResult> {
    const onProgress = options?.onProgress ? observed(options.onProgress) : undefined;
    return this.#attempts(server, `Calling '${tool}'`, 'call', options, async (signal) => {
      const checking = this.#checkArguments(server, tool, args, signal, options);
      if (checking) await checking;
      return this.runner.callTool(
        server,
        tool,
        { ...args },
        { toolName: tool, signal, ...bounds(options), ...(onProgress ? { onProgress } : {}) },
      );
    });
  }

  /**
   * Calls a tool for the host as {@link callTool} does, and gives a handle instead of the
   * result (SPEC 15.3): the task the server made of the call, or a completed handle when it
   * answered at once.
   */
  callToolTask(
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallToolOptions | undefined,
  ): Promise<McpTaskHandle> {
    const onProgress = options?.onProgress ? observed(options.onProgress) : undefined;
    return this.#attempts(server, `Calling '${tool}'`, 'call', options, async (signal) => {
      const checking = this.#checkArguments(server, tool, args, signal, options);
      if (checking) await checking;
      const started = await this.runner.startCall(
        server,
        tool,
        { ...args },
        { toolName: tool, signal, ...bounds(options), ...(onProgress ? { onProgress } : {}) },
      );
      const { answer } = started;
      if (answer.kind === 'result') return completedHandle(answer.result);
      return new TaskHandle({
        runner: this.runner,
        server,
        tool,
        started: { ...started, answer },
        secrets: this.registry.get(server)?.secrets ?? NO_SECRETS,
        ...(options?.signal ? { signal: options.signal } : {}),
      });
    });
  }

  /**
   * Checks a direct call's arguments against the server's listing (see
   * {@link checkDirectArguments}). When the live connection holds a listing and no session
   * renewal is under way, that listing answers at once, without an operation, and without a
   * promise once an earlier call compiled the tool's schema. Otherwise the runner finds the
   * connection (waiting for a renewal or a reconnect) and lists the tools when none are held.
   */
  #checkArguments(
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
    options: McpOperationOptions | undefined,
  ): void | Promise<void> {
    const entry = this.registry.get(server);
    const connection = entry?.connection;
    if (connection && !connection.closed && !entry!.renewing) {
      const held = connection.heldTool(tool);
      if (held !== undefined)
        return this.#judge(server, tool, args, held ?? undefined, connection.tasksOffered);
    }
    return this.runner
      .withConnection(
        server,
        async (c, b) => ({
          listed: await c.listedTool(tool, b.timeoutMs, b.signal),
          takesTasks: c.tasksOffered,
        }),
        { signal, ...bounds(options) },
      )
      .catch((err: unknown) => {
        throw this.#failure(server, 'Listing tools', err, signal);
      })
      .then(({ listed, takesTasks }) => this.#judge(server, tool, args, listed, takesTasks));
  }

  #judge(
    server: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    listed: McpTool | undefined,
    takesTasks: boolean,
  ): void | Promise<void> {
    if (listed && !takesTasks && requiresTasks(listed))
      throw new McpError(
        'MCP_EXTENSION_UNSUPPORTED',
        `Tool '${this.#redact(server, tool)}' of server '${server}' runs only as a task of protocol 2025-11-25 (execution.taskSupport "required"), which Muster does not speak: it takes tasks on 2026-07-28 connections only. The call was not sent.`,
        { server, details: { server, extension: 'tasks', reason: 'not-sent' } },
      );
    const secrets = this.registry.get(server)?.secrets ?? NO_SECRETS;
    return checkDirectArguments(server, tool, listed, args, secrets);
  }

  #attempts<T>(
    server: string,
    what: string,
    kind: OperationKind,
    options: McpOperationOptions | undefined,
    attempt: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (!this.registry.has(server)) return Promise.reject(unknownServerError(server));
    const signal = options?.signal
      ? AbortSignal.any([options.signal, this.lifetime])
      : this.lifetime;
    // the label names the operation in errors only: made when one needs it
    const label = () => this.#redact(server, `${what} on '${server}'`);
    return withRetry(kind, options?.retry, signal, label, async () => {
      await this.#connected(server, label, signal, options?.timeoutMs);
      return attempt(signal);
    });
  }

  /**
   * Connects `server` when it is not connected, waiting no longer than the caller's signal and
   * `timeoutMs` allow (the connect itself goes on for later callers; a background reconnect
   * makes its next attempt now). Still not connected after it (denied, needs authorization,
   * disabled, failed), the entry's recorded error is thrown; still reconnecting, the request
   * goes on to wait for the reconnect.
   */
  async #connected(
    server: string,
    label: () => string,
    signal: AbortSignal,
    timeoutMs: number | undefined,
  ): Promise<void> {
    if (!this.connect || live(this.registry.get(server))) return;
    const bound =
      timeoutMs !== undefined ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : signal;
    try {
      await raceAbort(this.connect(server), bound, label());
    } catch (err) {
      if (signal.aborted || !bound.aborted) throw err;
      throw new McpError(
        'MCP_CONNECTION_FAILED',
        `Connecting to '${server}' did not finish within timeoutMs (${timeoutMs} ms): the request was not sent. Raise timeoutMs or check the server.`,
        { server, details: { server, reason: 'not-sent', timeoutMs } },
      );
    }
    if (signal.aborted) throw abortedError(label(), signal.reason);
    const entry = this.registry.get(server);
    if (!entry) throw unknownServerError(server);
    // reconnecting in the background: the runner waits for it (within the request's bounds)
    if (!live(entry) && !this.runner.reconnecting(entry)) throw this.#notConnected(entry);
  }

  #notConnected(e: ServerEntry): MusterError {
    const details = { server: e.name, status: e.status };
    const recorded = e.error;
    if (!recorded)
      return new McpError(
        'MCP_OPERATION_FAILED',
        `Server '${e.name}' is not connected (status ${e.status}): the request was not sent.`,
        { server: e.name, details: { ...details, reason: 'not-sent' } },
      );
    const message = e.secrets.redact(recorded.message);
    const code = recorded.code as MusterErrorCode;
    if (code.startsWith('MCP_'))
      return new McpError(code as McpErrorCode, message, {
        server: e.name,
        details: code === 'MCP_CONNECTION_FAILED' ? { ...details, reason: 'not-sent' } : details,
      });
    return new MusterError(code, message, { details });
  }

  #redact(server: string, text: string): string {
    return this.registry.get(server)?.secrets.redact(text) ?? text;
  }

  #failure(server: string, what: string, err: unknown, signal: AbortSignal): MusterError {
    if (MusterError.isInstance(err)) return err;
    const secrets = this.registry.get(server)?.secrets ?? NO_SECRETS;
    if (signal.aborted)
      return abortedError(
        this.#redact(server, `${what} on '${server}'`),
        redactedCause(err, secrets.values()),
      );
    return operationFailure(server, what, err, secrets);
  }
}

/** For a server unregistered during the operation: token-like text is still masked. */
const NO_SECRETS = new SecretRegistry();

/** A host's progress callback whose failure never changes the call. */
function observed(onProgress: (progress: ToolProgress) => void): (progress: ToolProgress) => void {
  return (p) => {
    try {
      onProgress({
        progress: p.progress,
        ...(p.total !== undefined ? { total: p.total } : {}),
        ...(p.message !== undefined ? { message: p.message } : {}),
      });
    } catch {
      // like an observer's failure: reported nowhere, the call goes on
    }
  };
}

function live(e: ServerEntry | undefined): boolean {
  return e?.connection !== undefined && !e.connection.closed;
}

function bounds(
  options: McpOperationOptions | undefined,
): Pick<McpOperationOptions, 'timeoutMs' | 'maxTotalTimeoutMs'> {
  return {
    ...(options?.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options?.maxTotalTimeoutMs !== undefined
      ? { maxTotalTimeoutMs: options.maxTotalTimeoutMs }
      : {}),
  };
}

function requestOptions(b: ResolvedOperationOptions): RequestOptions {
  return {
    signal: b.signal,
    timeout: b.timeoutMs,
    resetTimeoutOnProgress: true,
    ...(b.maxTotalTimeoutMs !== undefined ? { maxTotalTimeout: b.maxTotalTimeoutMs } : {}),
  };
}
