import type { CallToolResult } from '@modelcontextprotocol/client';
import { authError, oauthReasonOf } from '../../auth/index.js';
import {
  McpError,
  MusterError,
  ToolError,
  abortedError,
  isAgentClosed,
} from '../../errors/index.js';
import type { ExecutorRunContext, NamingMode } from '../../tools/index.js';
import type { CallOptions, McpConnection } from '../client/mcp-connection.js';
import type { McpOptions } from '../contracts/config-types.js';
import type { ClientRequestHandler } from '../contracts/connection-types.js';
import type { McpToolAnswer } from '../contracts/task-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import { clientErrorOf, insufficientScopeOf } from '../failures/client-errors.js';
import { classifyCallError, describeError } from '../failures/mcp-errors.js';
import { SecretRegistry } from '../../util/index.js';
import { findInCauseChain } from '../failures/cause-chain.js';
import { sessionGone } from '../failures/session-loss.js';
import { needsSignIn } from './auth-connect.js';
import { connectionSummary } from './connection-summary.js';
import type { Connector } from './connector.js';
import { toDiscoveredTools } from './mcp-discovery.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import { resolveBounds } from './operation-runner.js';
import type { PrincipalLease, PrincipalOpened, PrincipalPool } from './principal-pool.js';
import type { PrincipalConnectionHooks } from './principal-pool.js';
import type { ServerEntry } from './server-entry.js';
import { TaskCalls, settleCancels } from './task-calls.js';
import type { FollowOptions, ResumedTask } from './task-calls.js';

/** Who an operation on a principal's connection is for, and what bounds and authorizes it. */
export interface PrincipalContext {
  readonly principal: string;
  readonly signal: AbortSignal;
  /**
   * The run whose policy authorizes `mcp_connect:<server>` when the principal's connection
   * must open (with its principal on the request); none outside a run.
   */
  readonly run?: Pick<ExecutorRunContext, 'sessionId' | 'runId' | 'authorize'>;
}

/** The options of one call on a principal's connection. */
export type PrincipalCallOptions = Pick<CallOptions, 'onProgress' | 'round' | 'idempotencyKey'> &
  Pick<FollowOptions, 'onTask' | 'park' | 'onAccepted'> & {
    readonly timeoutMs?: number;
    /** The tool's model-facing name, for the call's errors. */
    readonly toolName: string;
  };

/** What following the tasks of principals' calls needs (SPEC 15.3 and 15.4). */
export interface PrincipalTaskDeps {
  /** The request handlers of a principal's connection, for a task's input requests. */
  readonly handlersOf: (server: string, principal: string) => readonly ClientRequestHandler[];
  /** Ends with the manager: background cancels stop waiting. */
  readonly lifetime: AbortSignal;
}

/**
 * The servers' connections for principals (SPEC 15.4): opened with the principal's own OAuth
 * session or auth provider, never the entry's, kept in the {@link PrincipalPool}, listed and
 * called there. Nothing here falls back on the shared connection of a server or another
 * principal's: a principal whose connection cannot open fails, typed. A call the server makes
 * a task of is followed on the same principal's connection (every `tasks/*` request, its
 * cancel included, leases it anew: a task outlives the connection that created it).
 */
export class PrincipalConnections {
  /** The `tasks/cancel` requests in flight of every principal's tasks (see {@link settle}). */
  readonly #cancels = new Set<Promise<void>>();

  constructor(
    private readonly connector: Connector,
    private readonly pool: PrincipalPool,
    private readonly options: McpOptions,
    private readonly naming: NamingMode,
    private readonly taskDeps: PrincipalTaskDeps,
  ) {}

  /**
   * Lends the connection of `ctx.principal` to the server of `e`, authorized and opened first
   * when there is none, its listing refreshed when the server said it changed.
   *
   * @throws McpError `MCP_AUTH_REQUIRED` when the principal has no sign-in that works;
   *   `TOOL_DENIED` (not sent) when the policy refuses the connection; the connect's error.
   */
  async lease(e: ServerEntry, ctx: PrincipalContext): Promise<PrincipalLease> {
    if (!this.pool.has(e, ctx.principal)) await this.#authorize(e, ctx);
    let lease: PrincipalLease;
    try {
      lease = await this.pool.acquire(e, ctx.principal, ctx.signal, (hooks, signal) =>
        this.#open(e, ctx.principal, hooks, signal),
      );
    } catch (err) {
      throw ctx.signal.aborted ? err : signInFailure(e, err);
    }
    if (!lease.stale) return lease;
    try {
      const listed = await lease.connection.listTools(MCP_DEFAULTS.timeoutMs, ctx.signal);
      lease.setTools(toDiscoveredTools(e.name, listed, this.naming, lease.connection.tasksOffered));
      return lease;
    } catch (err) {
      // a listing that cannot be refreshed must not stay: the next use opens anew
      lease.discard();
      lease.release();
      throw err;
    }
  }

  /** The tools the server shows `ctx.principal` (on its connection, opened when needed). */
  async tools(e: ServerEntry, ctx: PrincipalContext): Promise<readonly DiscoveredTool[]> {
    const lease = await this.lease(e, ctx);
    try {
      return lease.tools;
    } finally {
      lease.release();
    }
  }

  /**
   * Runs one request (`what`: "Listing resources", say) on the principal's connection, bounded
   * by `ctx.signal` and the default timeout. A request refused for its token closes that
   * connection and fails `MCP_AUTH_REQUIRED`; other failures are `MCP_OPERATION_FAILED`,
   * redacted with the principal's secrets and the server's.
   */
  async request<T>(
    e: ServerEntry,
    ctx: PrincipalContext,
    what: string,
    send: (
      connection: McpConnection,
      bounds: { signal: AbortSignal; timeout: number },
    ) => Promise<T>,
  ): Promise<T> {
    const lease = await this.lease(e, ctx);
    try {
      return await send(lease.connection, { signal: ctx.signal, timeout: MCP_DEFAULTS.timeoutMs });
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const refused = tokenRefused(err);
      if (refused || lease.connection.closed) lease.discard();
      if (refused) throw signInFailure(e, err);
      if (MusterError.isInstance(err)) throw err;
      const { message } = describeError(err, e.name, 'MCP_OPERATION_FAILED', lease.secrets);
      throw new McpError('MCP_OPERATION_FAILED', `${what}: ${message}`, {
        server: e.name,
        details: { server: e.name },
      });
    } finally {
      lease.release();
    }
  }

  /**
   * Calls `tool` on the principal's connection. A call refused for its token (`401`, or a
   * refresh that cannot renew it) closes that connection and fails `MCP_AUTH_REQUIRED`; a
   * call the server refused because its HTTP session is gone (it never ran) is sent once more
   * on a fresh connection of the same principal. Failures are classified as the runner's
   * (`classifyCallError`), redacted with the principal's own secrets and the server's. A call
   * the server makes a task of is followed to its end on the principal's connection
   * ({@link TaskCalls.follow}), as the runner follows a shared connection's.
   */
  async callTool(
    e: ServerEntry,
    ctx: PrincipalContext,
    tool: string,
    args: Record<string, unknown>,
    options: PrincipalCallOptions,
  ): Promise<CallToolResult> {
    let secrets = e.secrets;
    const bounds = resolveBounds(
      e,
      {
        signal: ctx.signal,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      },
      this.options.operation,
    );
    const startedAt = Date.now();
    let answer: McpToolAnswer;
    let on: McpConnection | undefined;
    const tasks = this.#tasks(e, ctx, () => secrets);
    try {
      answer = await this.#callOnLease(e, ctx, tool, args, options, bounds, (used, c) => {
        secrets = used;
        on = c;
      });
    } catch (err) {
      // a task the server created, answered in a shape no revision defines: cancelled once
      const malformed = tasks.malformed(err, e.name, options.toolName, bounds.timeoutMs);
      if (malformed) throw malformed;
      throw classifyCallError(err, {
        toolName: options.toolName,
        server: e.name,
        signal: ctx.signal,
        timeoutMs: bounds.timeoutMs,
        secrets,
      });
    }
    if (answer.kind === 'result') return answer.result;
    if (ctx.signal.aborted && !isAgentClosed(ctx.signal.reason)) {
      // answered with a task as the caller gave up: cancelled once, the outcome unknown
      void tasks.cancel(e.name, answer.task.taskId, bounds.timeoutMs);
      throw classifyCallError(abortedError(`The call to '${tool}'`, ctx.signal.reason), {
        toolName: options.toolName,
        server: e.name,
        signal: ctx.signal,
        timeoutMs: bounds.timeoutMs,
        secrets,
      });
    }
    return tasks.follow(e.name, tool, answer.task, on, {
      ...options,
      signal: ctx.signal,
      timeoutMs: bounds.timeoutMs,
      startedAt,
      ...(bounds.maxTotalTimeoutMs !== undefined
        ? { maxTotalTimeoutMs: bounds.maxTotalTimeoutMs }
        : {}),
    });
  }

  /**
   * Polls on the task a principal's call became in an earlier run (its `task` wait, which
   * names the principal): on that principal's connection, never the shared one; the call is
   * not sent again ({@link TaskCalls.resume}).
   */
  async resumeTask(
    e: ServerEntry,
    ctx: PrincipalContext,
    tool: string,
    stored: ResumedTask,
    options: Omit<FollowOptions, 'resumed' | 'onAccepted' | 'signal'>,
    answers?: Readonly<Record<string, unknown>>,
  ): Promise<CallToolResult> {
    // the principal's connection, opened (and authorized) now when it is not: its secrets
    // redact what the polls report
    const lease = await this.lease(e, ctx);
    const secrets = lease.secrets;
    lease.release();
    return this.#tasks(e, ctx, () => secrets).resume(
      e.name,
      tool,
      stored,
      { ...options, signal: ctx.signal },
      answers,
    );
  }

  /**
   * Waits for the `tasks/cancel` requests in flight of principals' tasks, at most a short
   * bound (as {@link TaskCalls.settle}).
   */
  settle(): Promise<void> {
    return settleCancels(this.#cancels);
  }

  /**
   * The task side of `ctx.principal`'s calls to the server of `e`: every `tasks/*` request
   * leases that principal's connection (opened again when it was closed meanwhile, the
   * connection authorized by the run as a call's is); a background cancel is bounded by the
   * manager's lifetime, not the call's signal. `secrets` are the principal's, once known.
   */
  #tasks(e: ServerEntry, ctx: PrincipalContext, secrets: () => SecretRegistry): TaskCalls {
    return new TaskCalls({
      withConnection: (_server, operation, o) => {
        const signal = o.signal;
        const timeoutMs =
          o.timeoutMs ?? resolveBounds(e, { signal }, this.options.operation).timeoutMs;
        return this.#onLease(e, { ...ctx, signal }, (c) => operation(c, { signal, timeoutMs }));
      },
      options: this.options,
      secretsOf: secrets,
      handlersOf: (server) => this.taskDeps.handlersOf(server, ctx.principal),
      lifetime: this.taskDeps.lifetime,
      cancels: this.#cancels,
    });
  }

  /**
   * Runs one request of a task on the principal's connection: a request refused for its token
   * closes that connection and fails `MCP_AUTH_REQUIRED`; other failures are the request's
   * own (the task poller tells them apart).
   */
  async #onLease<T>(
    e: ServerEntry,
    ctx: PrincipalContext,
    send: (connection: McpConnection) => Promise<T>,
  ): Promise<T> {
    const lease = await this.lease(e, ctx);
    try {
      return await send(lease.connection);
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const refused = tokenRefused(err);
      if (refused || lease.connection.closed) lease.discard();
      throw refused ? signInFailure(e, err) : err;
    } finally {
      lease.release();
    }
  }

  async #callOnLease(
    e: ServerEntry,
    ctx: PrincipalContext,
    tool: string,
    args: Record<string, unknown>,
    options: PrincipalCallOptions,
    bounds: ReturnType<typeof resolveBounds>,
    using: (secrets: SecretRegistry, connection: McpConnection) => void,
  ): Promise<McpToolAnswer> {
    for (let attempt = 1; ; attempt++) {
      const lease = await this.lease(e, ctx);
      using(lease.secrets, lease.connection);
      try {
        return await lease.connection.callToolOrTask(tool, args, {
          ...bounds,
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          ...(options.round ? { round: options.round } : {}),
          ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
          // a task answered after the call was given up: nobody follows it, so it is cancelled
          onLateTask: (task) =>
            void this.#tasks(e, ctx, () => lease.secrets).cancel(
              e.name,
              task.taskId,
              bounds.timeoutMs,
            ),
        });
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        const gone = e.type === 'http' && sessionGone(err);
        const refused = tokenRefused(err);
        if (gone || refused || lease.connection.closed) lease.discard();
        if (gone && attempt === 1) continue;
        if (insufficientScopeOf(err) !== undefined)
          throw authError(
            e.name,
            'insufficient-scope',
            `Server '${e.name}' refused the request for lack of scope for this principal; it was not run. Sign the principal in again with the scope: agent.mcp.authenticate('${e.name}', { principal }).`,
            err,
          );
        throw refused ? signInFailure(e, err) : err;
      } finally {
        lease.release();
      }
    }
  }

  async #authorize(e: ServerEntry, ctx: PrincipalContext): Promise<void> {
    const run = ctx.run;
    if (!run) return;
    const decision = await run.authorize({
      kind: 'connection',
      capability: `mcp_connect:${e.name}`,
      server: e.name,
      source: e.type,
      connection: connectionSummary(e, this.options.sandbox),
      sessionId: run.sessionId,
      runId: run.runId,
    });
    if (decision.decision === 'allow') return;
    throw new ToolError(
      'TOOL_DENIED',
      `Connecting to '${e.name}' was not authorized (${decision.reason ?? decision.stage}); nothing was sent.`,
      { details: { server: e.name, reason: 'not-sent' } },
    );
  }

  async #open(
    e: ServerEntry,
    principal: string,
    hooks: PrincipalConnectionHooks,
    signal: AbortSignal,
  ): Promise<PrincipalOpened> {
    // an OAuth server: the principal's own session, held while its connection is open
    const held = e.perPrincipal?.kind === 'oauth' ? e.principals?.acquire(principal) : undefined;
    // the principal's tokens join its own registry (its session's), dropped with it
    const secrets = held ? held.session.secrets : new SecretRegistry([], e.secrets);
    try {
      const opened = await this.connector.openFor(
        e,
        { principal, secrets, ...(held ? { oauth: held.session } : {}) },
        signal,
        hooks,
      );
      return { ...opened, secrets, release: () => held?.release() };
    } catch (err) {
      held?.release();
      throw err;
    }
  }
}

/** True for a request refused for its token: a `401`, or a refresh that needs a new login. */
function tokenRefused(err: unknown): boolean {
  if (oauthReasonOf(err) === 'login-required') return true;
  const fact = findInCauseChain(err, clientErrorOf);
  return fact?.kind === 'sdk' && fact.status === 401;
}

/**
 * A principal's connection that failed for its sign-in, as `MCP_AUTH_REQUIRED` saying what to
 * do (the principal's own error when it already is one); any other failure as it is.
 */
function signInFailure(e: ServerEntry, err: unknown): unknown {
  if (!needsSignIn(err) && !tokenRefused(err)) return err;
  const reason = oauthReasonOf(err) ?? 'login-required';
  return authError(
    e.name,
    reason,
    `Server '${e.name}' has no working sign-in for this principal: sign it in with agent.mcp.authenticate('${e.name}', { principal }), then try again.`,
    err,
  );
}
