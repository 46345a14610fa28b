import type {
  CallToolResult,
  Client,
  DiscoverResult,
  PriorDiscovery,
  Tool as McpTool,
} from '@modelcontextprotocol/client';
import { McpError as McpErrorOf } from '../../errors/index.js';
import type { McpError } from '../../errors/index.js';
import { callIsolated } from '../../util/index.js';
import { loadClient } from '../failures/client-errors.js';
import { secretsOf } from '../config/redact.js';
import { totalDeadline } from './call-deadline.js';
import { callParams, callRequest } from './call-request.js';
import { definitionForClient, outputCheckFor } from './output-check.js';
import { ConnectBound } from './connect-bound.js';
import { openConnection } from './connection-open.js';
import { createClient } from './connection-client.js';
import {
  closedByClient,
  connectFailure,
  invalidResponseError,
  lostError,
  notSentError,
  streamLostError,
} from '../failures/connection-errors.js';
import { PendingRequests, watchTransport } from './pending-requests.js';
import type { ProcessExit } from '../failures/exit-status.js';
import type {
  LateTask,
  McpToolAnswer,
  TaskAnswerCapture,
  TaskCallTag,
} from '../contracts/task-types.js';
import { withTasksExtension } from './tasks-capability.js';

export type {
  ProtocolVerdict,
  ConnectMode,
  ClientRequestHandler,
  ConnectionSpecOf,
  ConnectionLink,
  CallOptions,
  ProbeBounds,
  ServerProcess,
} from '../contracts/connection-types.js';
import type {
  ProtocolVerdict,
  ConnectionSpecOf,
  ConnectionLink,
  CallOptions,
} from '../contracts/connection-types.js';

/** What opening a connection needs (see {@link ConnectionSpecOf}). */
export type ConnectionSpec = ConnectionSpecOf<McpConnection>;

/**
 * One live connection to one MCP server through the official client. It owns the client,
 * its transport and (for in-process servers) the server end. Closed by us or by the peer,
 * it releases all of them and fails its requests in flight at once.
 */
export class McpConnection {
  #closed = false;
  readonly #closeWatchers = new Set<() => void>();
  #released: Promise<void> | undefined;
  /** The requests in flight: each fails at once when its answer can no longer come. */
  readonly #pending = new PendingRequests();
  /** The tools of the latest listing, by name (forgotten when the server says they changed). */
  readonly #tools = new Map<string, McpTool>();
  /** True while {@link #tools} holds a listing (false until the first, and after a change). */
  #listed = false;
  /** A remote server (the client mirrors arguments into headers for it in the modern era). */
  #remote = false;
  /** The transport's capture of task answers (stdio and Streamable HTTP links). */
  #capture: TaskAnswerCapture | undefined;
  /** True when the client declared the Tasks extension (only with a capture). */
  #tasksDeclared = false;
  /** What the legacy era Muster tried first came to, when it failed (see `ProtocolVerdict`). */
  #legacyTrial: LegacyTrial = {};

  private constructor(
    readonly server: string,
    private readonly client: Client,
    private readonly link: ConnectionLink,
  ) {}

  /**
   * Opens, negotiates and initializes a connection, within `spec.connectTimeoutMs` and
   * `spec.signal` (an abort ends it at once, the protocol probe included). A stdio server in
   * `auto` mode without a remembered verdict is negotiated in place (see `openConnection`). Rejects with the client's error, or a Muster error that says more:
   * `ABORTED`, the `connectTimeoutMs` timeout, a process that exited before answering.
   */
  static open(spec: ConnectionSpec): Promise<McpConnection> {
    return openConnection(spec, (s2, link, bound) => McpConnection.#connect(s2, link, bound));
  }

  /** Connects a client over `link` (the transport of {@link open}, or any other). */
  static async connect(spec: ConnectionSpec, link: ConnectionLink): Promise<McpConnection> {
    const bound = new ConnectBound(spec.server, spec.connectTimeoutMs, spec.signal);
    try {
      return await McpConnection.#connect(spec, link, bound);
    } finally {
      bound.dispose();
    }
  }

  static async #connect(
    spec: ConnectionSpec,
    link: ConnectionLink,
    bound: ConnectBound,
  ): Promise<McpConnection> {
    const { Client } = await bound.race(loadClient());
    const onToolsChanged = () => {
      connection.#tools.clear();
      connection.#listed = false;
      spec.onToolsChanged();
    };
    // the Tasks extension is declared only where task answers are captured (SPEC 15.3)
    const declareTasks = spec.tasks === true && link.tasks !== undefined && !link.client;
    const capabilities = declareTasks ? withTasksExtension(spec.capabilities) : spec.capabilities;
    const client =
      link.client ??
      createClient(
        Client,
        { ...spec, ...(capabilities ? { capabilities } : {}), onToolsChanged },
        bound.remainingMs(),
      );
    const connection: McpConnection = new McpConnection(spec.server, client, link);
    connection.#remote = spec.config.type === 'http' || spec.config.type === 'sse';
    connection.#capture = link.client ? undefined : link.tasks;
    connection.#tasksDeclared = declareTasks;
    const prior = spec.verdict;
    connection.#legacyTrial =
      prior?.kind === 'modern' ? legacyTrialOf(prior) : (spec.legacyTrial ?? {});
    // answers that can no longer come: a Streamable HTTP response stream that ended without
    // the answer, a stdio answer over the size bound (the connection goes on), a close
    watchTransport(
      connection.#pending,
      link.transport,
      spec.config.type === 'http'
        ? { onStreamLost: () => connection.#failure('stream-lost') }
        : undefined,
    );
    let open = false;
    client.onclose = () => {
      // a handshake that fails closes the client too; only a connection that was open is "lost"
      if (!open || connection.#closed) return;
      connection.#closed = true;
      // the client fails its requests in flight itself ("Connection closed"): see #track
      connection.#pending.forgetAll();
      connection.#notifyClosed();
      void connection.#release();
      spec.onUnexpectedClose(connection);
    };
    client.onerror = (error) => {
      if (!connection.#closed) spec.onError?.(error);
    };
    try {
      await bound.race(
        client.connect(link.transport, {
          timeout: bound.remainingMs(),
          signal: bound.signal,
          ...(prior ? { prior: priorOf(prior) } : {}),
        }),
      );
    } catch (err) {
      if (bound.failure) {
        // an abort or the deadline: nothing waits for a graceful close
        connection.#closed = true;
        void (link.terminate ? link.terminate() : client.close()).catch(() => undefined);
        void connection.#release();
        throw bound.failure;
      }
      await connection.close();
      const pin = typeof spec.mode === 'object' ? spec.mode.pin : undefined;
      throw (
        connection.#pending.failureOf(err) ??
        connectFailure(spec.server, connection.exit, err, secretsOf(spec.config), pin)
      );
    }
    open = true;
    return connection;
  }

  /** The negotiated protocol version. */
  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion?.() ?? undefined;
  }

  /** `modern` (2026-07-28 and later) or `legacy`. */
  get era(): 'modern' | 'legacy' | undefined {
    return this.client.getProtocolEra?.() ?? undefined;
  }

  /** The verdict to remember for reconnects. */
  get verdict(): ProtocolVerdict | undefined {
    if (this.era === 'legacy') return { kind: 'legacy' };
    const discover = this.client.getDiscoverResult?.();
    if (this.era !== 'modern' || !discover) return undefined;
    return { kind: 'modern', discover, ...this.#legacyTrial };
  }

  /**
   * True when this connection speaks the Tasks extension (SEP-2663): the client declared it
   * (over a transport that captures task answers) and the protocol is 2026-07-28 or later.
   * `tasks/get`, `tasks/update` and `tasks/cancel` are sent only then.
   */
  get tasksOffered(): boolean {
    return this.#tasksDeclared && this.era === 'modern';
  }

  /** The server's name and version as it reported them. */
  get serverInfo(): { name: string; version: string; title?: string } | undefined {
    return this.client.getServerVersion?.() ?? undefined;
  }

  /** The capabilities the server declared. */
  get serverCapabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.client.getServerCapabilities?.() ?? undefined;
  }

  /** The server's instructions (never put into a system prompt). */
  get instructions(): string | undefined {
    return this.client.getInstructions?.() ?? undefined;
  }

  /** How the server's process ended, once it has (stdio only). */
  get exit(): ProcessExit | undefined {
    return this.link.exit?.();
  }

  /**
   * Runs a request on the official client. On a closed connection it fails without being
   * sent (`details.reason: 'not-sent'`); one whose answer can no longer come (the peer
   * closed, the transport gave up on its stream, its answer was over the size bound) fails
   * at once rather than at its timeout.
   */
  async request<T>(send: (client: Client) => Promise<T>): Promise<T> {
    if (this.#closed) throw this.#failure('not-sent');
    return this.#track(() => send(this.client));
  }

  /** The latest stderr text of a stdio server, for diagnostics only. */
  stderrTail(): string {
    return this.link.stderr?.() ?? '';
  }

  /** Lists every tool (all pages), bypassing caches. */
  async listTools(timeoutMs: number, signal?: AbortSignal): Promise<McpTool[]> {
    if (this.#closed) throw this.#failure('not-sent');
    const result = await this.#track(() =>
      this.client.listTools(undefined, {
        cacheMode: 'refresh',
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      } as never),
    );
    this.#tools.clear();
    for (const t of result.tools) this.#tools.set(t.name, t);
    this.#listed = true;
    return result.tools;
  }

  /**
   * A tool of the latest listing (undefined when the server did not list it), listing the
   * tools first when no listing is held: the server said they changed since the last one.
   */
  async listedTool(
    name: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<McpTool | undefined> {
    if (!this.#listed) await this.listTools(timeoutMs, signal);
    return this.#tools.get(name);
  }

  /**
   * A tool of the listing this connection holds, without a request: `null` when that listing
   * does not have it, `undefined` when no listing is held (see {@link listedTool}).
   */
  heldTool(name: string): McpTool | null | undefined {
    if (!this.#listed) return undefined;
    return this.#tools.get(name) ?? null;
  }

  /**
   * Calls a tool by its name on the server. Progress resets the per-request timeout;
   * `maxTotalTimeoutMs` is a hard deadline, progress or not (the request is cancelled when it
   * passes). A call on a closed connection fails without being sent (`details.reason:
   * 'not-sent'`); one whose answer can no longer come fails at once, as for {@link request}.
   * With `options.round` an `input_required` result is returned as it came (see `CallRound`).
   * A server that answers with a task fails the call (`MCP_OPERATION_FAILED`, the task id in
   * `details.taskId`): a caller that takes tasks uses {@link callToolOrTask}.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const answer = await this.callToolOrTask(name, args, options);
    if (answer.kind === 'result') return answer.result;
    throw new McpErrorOf(
      'MCP_OPERATION_FAILED',
      `Server '${this.server}' answered the call of "${name}" with task ${answer.task.taskId}, which this call does not take.`,
      {
        server: this.server,
        details: { server: this.server, tool: name, taskId: answer.task.taskId },
      },
    );
  }

  /**
   * Calls a tool as {@link callTool} does, and takes a task for an answer (SPEC 15.3): on a
   * connection that {@link tasksOffered}, a server that creates a task instead of answering
   * gives `{ kind: 'task' }` with the handle its `CreateTaskResult` carried, captured by the
   * transport below the client (which rejects that answer as `UNSUPPORTED_RESULT_TYPE`).
   * A task answer anywhere else (a legacy connection, the extension not declared) or one
   * without a task id is an invalid response (`details.reason: 'invalid-response'`). A call
   * given up before its answer came (abort, timeout) hands a task still answered for it to
   * `options.onLateTask`, so that it can be cancelled.
   */
  async callToolOrTask(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<McpToolAnswer> {
    if (this.#closed) throw this.#failure('not-sent');
    const listed = this.#tools.get(name);
    // Muster checks the output itself: the client gets the definition without its schema
    // (compiled before the send; a tool without an output schema has nothing to wait for)
    const check =
      listed?.outputSchema === undefined ? undefined : await outputCheckFor(this.server, listed);
    if (this.#closed) throw this.#failure('not-sent');
    const deadline = totalDeadline(this.server, options.maxTotalTimeoutMs);
    const round = options.round;
    // Muster checks the output (rounds included): the client gets the definition without it
    const definition =
      this.era === 'modern' && this.#remote ? undefined : listed && definitionForClient(listed);
    const tag = this.#capture?.tag({ hold: this.tasksOffered });
    const request = {
      ...callRequest(options, deadline, definition),
      ...(tag ? { onresumptiontoken: tag } : {}),
    };
    try {
      const params = callParams(name, args, round, options.idempotencyKey);
      let result: CallToolResult;
      try {
        // `#track`'s race, made here: one async layer less on every call
        const sent = this.client.callTool(params as never, request);
        result = (await (deadline
          ? Promise.race([sent, deadline.passed])
          : sent)) as CallToolResult;
      } catch (err) {
        // read first, as `#track` did: it takes a local failure off the pending list
        const failure = this.#trackedFailure(err);
        // given up before the answer came (an abort, a timeout): a task still answered goes
        // to `onLateTask`, which cancels it
        const onLate = this.tasksOffered ? options.onLateTask : undefined;
        const task = this.#taskAnswer(tag, onLate);
        if (task) return task;
        throw failure;
      }
      // a legacy client takes a task answer for a result (it drops `resultType`)
      if (this.#taskAnswer(tag))
        throw invalidResponseError(this.server, 'tools/call', 'a task taken for a result');
      check?.(result);
      return { kind: 'result', result };
    } finally {
      deadline?.dispose();
    }
  }

  /**
   * Checks a `completed` task's result (SPEC 15.3) as a direct answer of the call is checked:
   * against the tool's declared output schema (`TOOL_EXECUTION_FAILED`, `output-invalid`).
   */
  async checkTaskResult(name: string, result: CallToolResult): Promise<void> {
    (await outputCheckFor(this.server, this.#tools.get(name)))?.(result);
  }

  /**
   * The task answer the capture took for the call tagged `tag`: its handle when this
   * connection offered tasks; else (or when it was no task) the invalid response it is.
   */
  #taskAnswer(
    tag: TaskCallTag | undefined,
    onLate?: (task: LateTask) => void,
  ): McpToolAnswer | undefined {
    const answer = tag && this.#capture?.take(tag, onLate);
    if (!answer) return undefined;
    if (answer.kind === 'malformed')
      // where tasks are taken, its id (if usable) goes with it: the caller cancels the task
      throw invalidResponseError(
        this.server,
        'tools/call',
        `a task with ${answer.problem}`,
        answer.taskId !== undefined && this.tasksOffered ? { taskId: answer.taskId } : {},
      );
    if (!this.tasksOffered)
      throw invalidResponseError(
        this.server,
        'tools/call',
        this.era === 'modern'
          ? 'a task, but this connection did not declare the Tasks extension'
          : 'a task, which a connection of protocol ' +
              `${this.protocolVersion ?? 'before 2026-07-28'} does not take`,
      );
    return { kind: 'task', task: answer.task };
  }

  /** True once closed, by us or by the peer. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `watcher` once when the connection closes (at once if closed); returns an unwatch. */
  onClosed(watcher: () => void): () => void {
    if (this.#closed) {
      watcher();
      return () => undefined;
    }
    this.#closeWatchers.add(watcher);
    return () => this.#closeWatchers.delete(watcher);
  }

  /**
   * Closes the client, the transport and any in-process server end. Idempotent. A stdio
   * server is given time to exit (stdin closed, then SIGTERM, then SIGKILL); with `force`
   * (the run that needed it was aborted) it is stopped at once and reaped in the background.
   */
  async close(options?: {
    readonly force?: boolean;
    /**
     * Ends the server's HTTP session first (an HTTP `DELETE`, Streamable HTTP only), within
     * this many ms: for a connection closed while idle, so the server frees the session at
     * once instead of keeping it until its own timeout. A failure is ignored.
     */
    readonly endSessionMs?: number;
  }): Promise<void> {
    if (!this.#closed && options?.endSessionMs !== undefined)
      await endSession(this.link.transport, options.endSessionMs);
    if (!this.#closed) {
      this.#closed = true;
      this.#pending.failAll(() => this.#failure('stream-lost'));
      this.#notifyClosed();
      if (options?.force && this.link.terminate) void this.link.terminate().catch(() => undefined);
      await this.client.close().catch(() => undefined);
    }
    await this.#release();
  }

  /**
   * Runs one operation, raced against `passed` too. A request {@link PendingRequests} failed
   * throws Muster's error for it; the client's own "Connection closed" says less than ours
   * (the process's exit, or that the stream was lost).
   */
  async #track<T>(work: () => Promise<T>, passed?: Promise<never>): Promise<T> {
    try {
      return await (passed ? Promise.race([work(), passed]) : work());
    } catch (err) {
      throw this.#trackedFailure(err);
    }
  }

  /** What a request that failed with `err` fails with: see {@link request}. */
  #trackedFailure(err: unknown): unknown {
    const failure = this.#pending.failureOf(err);
    if (failure) return failure;
    if ((this.exit || this.#closed) && closedByClient(err)) return this.#lost();
    return err;
  }

  #release(): Promise<void> {
    this.#released ??= this.link.release().catch(() => undefined);
    return this.#released;
  }

  #notifyClosed(): void {
    const watchers = [...this.#closeWatchers];
    this.#closeWatchers.clear();
    for (const w of watchers) callIsolated(w, undefined);
  }

  #lost(): McpError {
    return lostError(this.server, this.exit);
  }

  #failure(reason: 'not-sent' | 'stream-lost'): McpError {
    return reason === 'not-sent' ? notSentError(this.server) : streamLostError(this.server);
  }
}

/** The marks a modern verdict carries of a failed legacy trial (see `ProtocolVerdict`). */
type LegacyTrial = { readonly legacyRefused?: true; readonly legacyFailed?: true };

/** The legacy-trial marks of `verdict`, to carry into the verdict of the connection. */
function legacyTrialOf(verdict: ProtocolVerdict & { kind: 'modern' }): LegacyTrial {
  return {
    ...(verdict.legacyRefused === true ? { legacyRefused: true } : {}),
    ...(verdict.legacyFailed === true ? { legacyFailed: true } : {}),
  };
}

/** A remembered verdict as the official client takes it (`connect({ prior })`). */
function priorOf(verdict: ProtocolVerdict): PriorDiscovery {
  return verdict.kind === 'legacy'
    ? { kind: 'legacy' }
    : { kind: 'modern', discover: verdict.discover as DiscoverResult };
}

/** Sends the transport's session `DELETE` (Streamable HTTP with a session), bounded. */
async function endSession(transport: unknown, timeoutMs: number): Promise<void> {
  const t = transport as { sessionId?: unknown; terminateSession?: unknown };
  if (typeof t.terminateSession !== 'function' || typeof t.sessionId !== 'string') return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([
      (t.terminateSession as () => Promise<void>).call(t).catch(() => undefined),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
