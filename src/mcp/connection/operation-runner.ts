import type { CallToolResult } from '@modelcontextprotocol/client';
import { authError, oauthReasonOf } from '../../auth/index.js';
import { steppedUp } from './auth-connect.js';
import { SecretRegistry, raceAbort } from '../../util/index.js';
import type { McpOptions } from '../contracts/config-types.js';
import type { Connector } from './connector.js';
import { wasNotSent } from '../failures/failure-reasons.js';
import { suspectsLoss } from './health-check.js';
import type { HealthChecks } from './health-check.js';
import type { CallOptions, McpConnection } from '../client/mcp-connection.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import { clientErrorOf, insufficientScopeOf } from '../failures/client-errors.js';
import { classifyCallError, describeError } from '../failures/mcp-errors.js';
import type { ServerEntry } from './server-entry.js';
import type { ServerRegistry } from './server-registry.js';
import { sessionGone } from '../failures/session-loss.js';
import { notSentError } from '../failures/connection-errors.js';
import { abortedError, isAgentClosed } from '../../errors/index.js';
import type { ClientRequestHandler } from '../contracts/connection-types.js';
import type { McpToolAnswer } from '../contracts/task-types.js';
import { TaskCalls } from './task-calls.js';
import type { FollowOptions } from './task-calls.js';
import type { ToolIndex } from './tool-index.js';

/** The bounds of one operation. */
export interface OperationOptions {
  readonly signal: AbortSignal;
  /** Per-request timeout (reset by progress); default: the server's or `mcp.operation`'s. */
  readonly timeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
}

/** The bounds an operation runs with, defaults applied. */
export interface ResolvedOperationOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
}

/**
 * The bounds one operation runs with: its own timeout, else the server's (`timeoutMs` of an
 * http declaration), else `mcp.operation`'s, else the default; the total timeout likewise.
 */
export function resolveBounds(
  entry: ServerEntry,
  options: OperationOptions,
  defaults: McpOptions['operation'],
): ResolvedOperationOptions {
  const timeoutMs =
    options.timeoutMs ??
    (entry.config.type === 'http' ? entry.config.timeoutMs : undefined) ??
    defaults?.timeoutMs ??
    MCP_DEFAULTS.timeoutMs;
  const maxTotal = options.maxTotalTimeoutMs ?? defaults?.maxTotalTimeoutMs;
  return {
    signal: options.signal,
    timeoutMs,
    ...(maxTotal !== undefined ? { maxTotalTimeoutMs: maxTotal } : {}),
  };
}

/** The options of one tool call on a server. */
export type ToolCallOptions = Omit<CallOptions, 'timeoutMs' | 'onLateTask'> &
  Pick<FollowOptions, 'onTask' | 'answerInput' | 'park' | 'onAccepted'> & {
    readonly toolName?: string;
    readonly timeoutMs?: number;
  };

/**
 * A call sent and answered: its result or task, the connection it came on, its bounds and
 * when it was sent (ms since the epoch: its total deadline counts from there).
 */
export interface StartedCall {
  readonly answer: McpToolAnswer;
  readonly connection: McpConnection;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
  readonly startedAt: number;
}

/** One request on a connection, with its bounds. */
type Send<T> = (connection: McpConnection, options: ResolvedOperationOptions) => Promise<T>;

/**
 * Runs operations on a server's live connection (SPEC 7.4):
 * - a lost Streamable HTTP session ({@link sessionGone}: the server never ran the request) is
 *   renewed once, without the caller noticing; concurrent callers share one renewal, which
 *   belongs to no caller: one caller giving up stops only its wait;
 * - a request that failed at the transport has its connection checked at once, so a dead
 *   server stops showing `connected` ({@link HealthChecks.verify});
 * - with `mcp.reconnect.enabled`, a request that was not sent ({@link wasNotSent}), or that
 *   finds its server reconnecting, waits for the reconnect (within its signal and
 *   `timeoutMs`) and is sent once on the new connection. A request that may have reached the
 *   server is never sent again.
 */
export class OperationRunner {
  readonly #lifetime = new AbortController();
  /** Requests in flight per entry (no periodic health check meanwhile). */
  readonly #requests = new WeakMap<ServerEntry, number>();
  /** The calls that became tasks: followed, and cancelled when given up. */
  readonly tasks: TaskCalls;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly connector: Connector,
    private readonly index: ToolIndex,
    private readonly options: McpOptions,
    private readonly background: Emit,
    private readonly health: HealthChecks,
    handlersOf?: (server: string) => readonly ClientRequestHandler[],
  ) {
    this.tasks = new TaskCalls({
      withConnection: (server, operation, o) => this.withConnection(server, operation, o),
      options,
      secretsOf: (server) => this.registry.get(server)?.secrets ?? NO_SECRETS,
      ...(handlersOf ? { handlersOf } : {}),
      lifetime: this.#lifetime.signal,
    });
  }

  /**
   * True while `e` is reconnecting in the background with `mcp.reconnect.enabled`: a request
   * for it waits for the reconnect (within its bounds) instead of failing as not sent.
   */
  reconnecting(e: ServerEntry): boolean {
    return (
      this.connector.settings.enabled &&
      this.registry.isLive(e) &&
      this.connector.loss.reconnector.active(e)
    );
  }

  /** True while a request is in flight on the server of `e`. */
  busy(e: ServerEntry): boolean {
    return (this.#requests.get(e) ?? 0) > 0;
  }

  /**
   * Runs `operation` on the connection of `server`. Rejects with an `McpError` whose
   * `details.reason` is `not-sent` when the server is not connected; other failures are the
   * operation's own.
   */
  async withConnection<T>(
    server: string,
    operation: Send<T>,
    options: OperationOptions,
  ): Promise<T> {
    const entry = this.registry.get(server);
    if (!entry) throw notSentError(server);
    const resolved = resolveBounds(entry, options, this.options.operation);
    let connection = entry.connection;
    if (!connection || connection.closed)
      connection = await this.#reconnected(entry, resolved, notSentError(server));
    this.#requests.set(entry, (this.#requests.get(entry) ?? 0) + 1);
    try {
      return await this.#send(entry, connection, operation, resolved);
    } catch (err) {
      if (options.signal.aborted || !this.registry.isLive(entry)) throw err;
      if (!wasNotSent(err)) {
        if (suspectsLoss(err)) void this.health.verify(entry, connection);
        throw err;
      }
      // known lost before the caller hears of it; then, with reconnect, sent once more (an
      // abort meanwhile ends the wait at once: callers rely on settling on abort)
      await raceAbort(
        this.health.verify(entry, connection),
        options.signal,
        `a call to '${server}'`,
      );
      if (!this.connector.settings.enabled) throw err;
      const fresh = await this.#reconnected(entry, resolved, err);
      return await this.#send(entry, fresh, operation, resolved);
    } finally {
      const left = (this.#requests.get(entry) ?? 1) - 1;
      if (left > 0) this.#requests.set(entry, left);
      else this.#requests.delete(entry);
    }
  }

  /**
   * The live connection of `e` once its background reconnect (if any, with reconnect
   * enabled) completed within the caller's signal and `timeoutMs`; else `failure` is thrown.
   */
  async #reconnected(
    e: ServerEntry,
    bounds: ResolvedOperationOptions,
    failure: unknown,
  ): Promise<McpConnection> {
    const live = () =>
      this.registry.isLive(e) && e.connection && !e.connection.closed ? e.connection : undefined;
    // the wait holds the process open (unlike `AbortSignal.timeout`): a script awaiting
    // this call must not exit while the server comes back
    if (this.reconnecting(e))
      await this.connector.loss.reconnector.settled(e, bounds.signal, bounds.timeoutMs);
    const connection = live();
    if (!connection) throw failure;
    return connection;
  }

  /** Sends once; an expired HTTP session is renewed and the request sent on the new one. */
  async #send<T>(
    entry: ServerEntry,
    current: McpConnection,
    operation: Send<T>,
    resolved: ResolvedOperationOptions,
  ): Promise<T> {
    const { signal } = resolved;
    // a session renewal in flight closes this connection once it is done: a request sent on
    // it now could be cut off after it left (outcome unknown), so it waits for the new one
    const connection = entry.renewing
      ? await raceAbort(entry.renewing, signal, `a call to '${entry.name}'`).catch(
          (err: unknown) => {
            if (signal.aborted) throw err;
            return current;
          },
        )
      : current;
    try {
      return entry.oauth
        ? await this.#signedIn(entry, () => operation(connection, resolved), signal)
        : await operation(connection, resolved);
    } catch (err) {
      // "this session is gone" means the server never ran the request: start a new session
      // and send it once more
      if (entry.type !== 'http' || !sessionGone(err) || signal.aborted) throw err;
      const fresh = await raceAbort(
        this.#renewSession(entry, connection),
        signal,
        `a call to '${entry.name}'`,
      ).catch((renewal: unknown) => {
        throw signal.aborted ? renewal : err;
      });
      return operation(fresh, resolved);
    }
  }

  /**
   * Calls a tool by server and original name. A call the server turns into a task (SPEC 15.3)
   * is followed to its end ({@link TaskCalls.follow}) and its result given as if the call had
   * answered it. Tool-level failures throw `ToolError`s.
   */
  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<CallToolResult> {
    const started = await this.startCall(server, tool, args, options);
    if (started.answer.kind === 'result') return started.answer.result;
    return this.tasks.follow(server, tool, started.answer.task, started.connection, {
      ...options,
      timeoutMs: started.timeoutMs,
      startedAt: started.startedAt,
      ...(started.maxTotalTimeoutMs !== undefined
        ? { maxTotalTimeoutMs: started.maxTotalTimeoutMs }
        : {}),
    });
  }

  /**
   * Sends a `tools/call` and gives its answer: the result, or the task the server made of it
   * (not followed), with the connection it came on and the call's bounds. A task answered
   * as the call was given up (an abort, a timeout) is cancelled, except on an agent's close
   * (which never cancels: the task is the caller's to follow or record). A task answer that
   * carries a task id but is otherwise malformed is cancelled too, and the call's outcome is
   * unknown. Tool-level failures throw `ToolError`s.
   */
  async startCall(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: ToolCallOptions,
  ): Promise<StartedCall> {
    let timeoutMs: number = MCP_DEFAULTS.timeoutMs;
    let maxTotalTimeoutMs: number | undefined;
    let answer: McpToolAnswer;
    let on: McpConnection | undefined;
    const startedAt = Date.now();
    try {
      answer = await this.withConnection(
        server,
        (c, bounds) => {
          timeoutMs = bounds.timeoutMs;
          maxTotalTimeoutMs = bounds.maxTotalTimeoutMs;
          on = c;
          // built key by key, not from spreads: on Node 20 a spread's copy gets a hidden class
          // outside V8's transition tree, and every key added to it a new class per call
          const call: { -readonly [K in keyof CallOptions]: CallOptions[K] } = {
            signal: bounds.signal,
            timeoutMs: bounds.timeoutMs,
            onLateTask: (task) => void this.tasks.cancel(server, task.taskId, bounds.timeoutMs),
          };
          if (bounds.maxTotalTimeoutMs !== undefined)
            call.maxTotalTimeoutMs = bounds.maxTotalTimeoutMs;
          if (options.onProgress) call.onProgress = options.onProgress;
          if (options.round) call.round = options.round;
          if (options.idempotencyKey) call.idempotencyKey = options.idempotencyKey;
          return c.callToolOrTask(tool, args, call);
        },
        options,
      );
    } catch (err) {
      // a task the server created, answered in a shape no revision defines: nobody can follow
      // it, so it is cancelled once (on any abort too), the call's outcome unknown
      const malformed = this.tasks.malformed(err, server, options.toolName ?? tool, timeoutMs);
      if (malformed) throw malformed;
      throw classifyCallError(err, {
        toolName: options.toolName ?? tool,
        server,
        signal: options.signal,
        timeoutMs,
        secrets: this.registry.get(server)?.secrets ?? NO_SECRETS,
      });
    }
    if (answer.kind === 'task' && options.signal.aborted && !isAgentClosed(options.signal.reason)) {
      // answered with a task as the caller gave up: cancelled once, the outcome unknown (an
      // agent's close cancels nothing: the task goes to the caller, whose poll ends at once)
      void this.tasks.cancel(server, answer.task.taskId, timeoutMs);
      throw classifyCallError(abortedError(`The call to '${tool}'`, options.signal.reason), {
        toolName: options.toolName ?? tool,
        server,
        signal: options.signal,
        timeoutMs,
        secrets: this.registry.get(server)?.secrets ?? NO_SECRETS,
      });
    }
    return {
      answer,
      connection: on!,
      timeoutMs,
      startedAt,
      ...(maxTotalTimeoutMs !== undefined ? { maxTotalTimeoutMs } : {}),
    };
  }

  /**
   * Runs one request of an OAuth server: a `403 insufficient_scope` (refused, so safe to send
   * again) leads to step-up when the host allowed it, within the attempt limit; a token no
   * refresh could renew takes the server to `needs-auth`. Never a login in pull mode.
   */
  async #signedIn<T>(entry: ServerEntry, send: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const session = entry.oauth!;
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (err) {
        if (signal.aborted) throw err;
        if (
          await raceAbort(
            steppedUp(session, err, attempt, signal),
            signal,
            `a call to '${entry.name}'`,
          )
        )
          continue;
        if (insufficientScopeOf(err) !== undefined) {
          throw authError(
            entry.name,
            'insufficient-scope',
            `Server '${entry.name}' still refused the request for lack of scope after ${attempt} attempts; it was not run.`,
          );
        }
        const fact = clientErrorOf(err);
        if (
          oauthReasonOf(err) === 'login-required' ||
          (fact?.kind === 'sdk' && fact.status === 401)
        ) {
          this.connector.authLost(
            entry,
            describeError(err, entry.name, 'MCP_AUTH_REQUIRED', entry.secrets),
          );
        }
        throw err;
      }
    }
  }

  /** Stops renewals in flight. */
  close(): void {
    this.#lifetime.abort();
  }

  /** Replaces a connection whose HTTP session expired; every caller shares the renewal. */
  renewSession(e: ServerEntry, expired: McpConnection): Promise<McpConnection> {
    return this.#renewSession(e, expired);
  }

  #renewSession(e: ServerEntry, expired: McpConnection): Promise<McpConnection> {
    if (e.connection && e.connection !== expired) return Promise.resolve(e.connection);
    e.renewing ??= (async () => {
      try {
        const { connection, tools } = await this.connector.open(
          e,
          this.#lifetime.signal,
          e.verdict,
        );
        if (this.registry.isLive(e))
          await this.connector.restore(e, connection, this.#lifetime.signal);
        if (!this.registry.isLive(e)) {
          await connection.close();
          throw notSentError(e.name);
        }
        e.connection = connection;
        await expired.close();
        this.index.publish(e, tools, 'refreshed', this.background);
        return connection;
      } finally {
        delete e.renewing;
      }
    })();
    const renewing = e.renewing;
    renewing.catch(() => undefined);
    return renewing;
  }
}

/** For a server unregistered during the call: token-like text is still masked. */
const NO_SECRETS = new SecretRegistry();
