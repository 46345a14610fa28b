import type { ExecutorRunContext } from '../tools/index.js';
import { oauthReasonOf } from '../auth/index.js';
import { needsSignIn, openSignedIn } from './auth-connect.js';
import { mapWithConcurrency } from './concurrency.js';
import { connectOptionsFor } from './connect-options.js';
import type { McpOptions } from './config-types.js';
import type { ClientSetup } from './client-setup.js';
import type { ClientRequestHandler, ProtocolVerdict } from './mcp-connection.js';
import { McpConnection } from './mcp-connection.js';
import { MCP_DEFAULTS, mcpEvent } from './mcp-defaults.js';
import type { Emit } from './mcp-defaults.js';
import { toDiscoveredTools } from './mcp-discovery.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import { describeError } from './mcp-errors.js';
import type { ServerEntry } from './server-entry.js';
import type { ServerRegistry } from './server-registry.js';
import type { ToolIndex } from './tool-index.js';
import { describeExit } from './transports/exit-status.js';
import { FileVerdictCache } from './verdict-cache.js';
import type { VerdictCache } from './verdict-cache.js';

/** A freshly opened connection and the tools it listed. */
export interface Opened {
  readonly connection: McpConnection;
  readonly tools: DiscoveredTool[];
}

/** What the connector needs besides the registry and the tool index. */
export interface ConnectorOptions {
  readonly options: McpOptions;
  /** Events outside any run (status changes of lost connections, diagnostics). */
  readonly background: Emit;
  readonly verdicts?: VerdictCache;
  /** The client capabilities and request handlers every connection declares. */
  readonly client?: {
    readonly capabilities?: Record<string, unknown>;
    readonly handlers?: readonly ClientRequestHandler[];
  };
  /** Per-server client features (handlers, capabilities, notifications); wins over `client`. */
  readonly clientFor?: (server: string) => ClientSetup;
  /** Aborts when the owner closes: bounds pull-mode logins, which outlive their run. */
  readonly lifetime?: AbortSignal;
}

/**
 * Brings servers online: authorizes `mcp_connect:<server>`, opens connections (bounded,
 * isolated, with remembered protocol verdicts), publishes their tools, refreshes stale
 * listings, and takes down what was lost.
 */
export class Connector {
  constructor(
    private readonly registry: ServerRegistry,
    private readonly index: ToolIndex,
    private readonly config: ConnectorOptions,
  ) {}

  /** Connects what is not connected yet and refreshes stale listings (one job per server). */
  async prepare(ctx: ExecutorRunContext): Promise<void> {
    const todo = this.registry
      .entries()
      .filter((e) => !e.blocked && (e.busy || e.retry || (e.status === 'connected' && e.stale)));
    const limit = this.config.options.startupConcurrency ?? MCP_DEFAULTS.startupConcurrency;
    // One connect (or refresh) per server at a time: a second run waits for the one in flight.
    await mapWithConcurrency(todo, limit, (e) =>
      this.#once(e, () =>
        e.status === 'connected' && e.stale ? this.#refresh(e, ctx) : this.#connect(e, ctx),
      ),
    );
  }

  /** Connects one server now (used by `register`). */
  async connectOne(name: string, ctx: ExecutorRunContext): Promise<void> {
    const e = this.registry.get(name);
    if (e && !e.blocked) await this.#once(e, () => this.#connect(e, ctx));
  }

  /** Opens a connection to a server and lists its tools; closes it again if listing fails. */
  async open(
    e: ServerEntry,
    signal: AbortSignal,
    verdict: ProtocolVerdict | undefined,
  ): Promise<Opened> {
    const { options, client } = this.config;
    const setup = this.config.clientFor?.(e.name);
    const capabilities = setup?.capabilities ?? client?.capabilities;
    const handlers = setup?.handlers ?? client?.handlers;
    const connection = await McpConnection.open({
      server: e.name,
      config: e.config,
      mode: options.protocol?.mode ?? 'auto',
      ...(verdict ? { verdict } : {}),
      transport: {
        server: e.name,
        maxResponseBytes: options.maxResponseBytes ?? MCP_DEFAULTS.maxResponseBytes,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
        stderrBytes: MCP_DEFAULTS.stderrBytes,
        secrets: e.secrets,
        ...(e.oauth ? { oauth: e.oauth } : {}),
      },
      ...connectOptionsFor(e, options),
      signal,
      ...(capabilities ? { capabilities } : {}),
      ...(handlers ? { handlers } : {}),
      ...(setup ? { onNotification: setup.onNotification } : {}),
      onToolsChanged: () => this.#markStale(e),
      onUnexpectedClose: (closed) => this.lost(e, closed),
      onError: (error) => this.#diagnostic(e, error),
    });
    try {
      const tools = toDiscoveredTools(
        e.name,
        await connection.listTools(MCP_DEFAULTS.timeoutMs, signal),
        this.index.naming,
      );
      return { connection, tools };
    } catch (err) {
      // an aborted run waits for no graceful exit
      await connection.close({ force: signal.aborted });
      throw err;
    }
  }

  /** Takes down a connection that closed on its own: its tools go, the next run reconnects. */
  lost(e: ServerEntry, closed: McpConnection): void {
    if (!this.registry.isLive(e) || e.connection !== closed) return;
    this.index.drop(e);
    delete e.connection;
    e.retry = true;
    const exit = closed.exit;
    this.registry.setStatus(e, 'failed', this.config.background, {
      code: 'MCP_DISCONNECTED',
      message: `Server '${e.name}' ${exit ? describeExit(exit) : 'disconnected'}; it will be reconnected at the next run.`,
    });
  }

  #once(e: ServerEntry, work: () => Promise<void>): Promise<void> {
    if (e.busy) return e.busy;
    const busy: Promise<void> = work().finally(() => {
      if (e.busy === busy) delete e.busy;
    });
    e.busy = busy;
    return busy;
  }

  async #connect(e: ServerEntry, ctx: ExecutorRunContext): Promise<void> {
    if (this.registry.closed) return;
    const decision = await ctx.authorize({
      kind: 'connection',
      capability: `mcp_connect:${e.name}`,
      server: e.name,
      source: e.type,
      sessionId: ctx.sessionId,
      runId: ctx.runId,
    });
    if (decision.decision !== 'allow') {
      e.retry = true;
      this.registry.setStatus(e, 'disabled', ctx.emit, {
        code: decision.code ?? 'TOOL_DENIED',
        message: `Connecting to '${e.name}' was not authorized (${decision.reason ?? decision.stage}).`,
      });
      return;
    }
    e.retry = false;
    this.registry.setStatus(e, 'connecting', ctx.emit);
    try {
      const { connection, tools } = await this.#openWithVerdict(e, ctx.signal);
      if (!this.registry.isLive(e)) {
        // closed or unregistered while connecting: nothing may keep this connection alive
        await connection.close();
        return;
      }
      e.connection = connection;
      e.protocolVersion = connection.protocolVersion;
      e.era = connection.era;
      delete e.error;
      this.registry.setStatus(e, 'connected', ctx.emit);
      this.index.publish(e, tools, 'discovered', ctx.emit);
    } catch (err) {
      if (ctx.signal.aborted) {
        // the run was aborted, not the server: try again at the next run
        e.retry = true;
        this.registry.setStatus(e, 'pending', ctx.emit);
        return;
      }
      // a sign-in waiting for its callback must not be replaced by the next run's connect
      e.retry = needsSignIn(err) && !e.oauth?.waiting;
      const reason = oauthReasonOf(err);
      if (reason) e.authReason = reason;
      else delete e.authReason;
      this.registry.setStatus(
        e,
        needsSignIn(err) ? 'needs-auth' : 'failed',
        ctx.emit,
        describeError(err, e.name, 'MCP_CONNECTION_FAILED', e.secrets),
      );
    }
  }

  /** A server whose token no refresh could renew: its tools go until it is signed in again. */
  authLost(e: ServerEntry, error: { code: string; message: string }): void {
    if (!this.registry.isLive(e)) return;
    const connection = e.connection;
    this.index.drop(e);
    delete e.connection;
    e.retry = true;
    void connection?.close();
    this.registry.setStatus(e, 'needs-auth', this.config.background, error);
  }

  /** Opens with the remembered verdict; a stale one is forgotten and negotiation redone. */
  async #openWithVerdict(e: ServerEntry, signal: AbortSignal): Promise<Opened> {
    const { options, verdicts } = this.config;
    const auto = (options.protocol?.mode ?? 'auto') === 'auto';
    const cacheKey =
      auto && e.type !== 'sdk' && verdicts ? FileVerdictCache.keyOf(e.key) : undefined;
    let verdict = auto
      ? (e.verdict ?? (cacheKey ? await verdicts!.get(cacheKey) : undefined))
      : undefined;
    const lifetime = this.config.lifetime ?? signal;
    let opened: Opened;
    try {
      opened = await openSignedIn(e, () => this.open(e, signal, verdict), signal, lifetime);
    } catch (err) {
      // A remembered verdict may be stale (the server changed): forget it and negotiate again.
      if (!verdict || signal.aborted || needsSignIn(err)) throw err;
      verdict = undefined;
      delete e.verdict;
      if (cacheKey) await verdicts!.delete(cacheKey);
      opened = await openSignedIn(e, () => this.open(e, signal, undefined), signal, lifetime);
    }
    const learned = opened.connection.verdict;
    if (learned && this.registry.isLive(e)) {
      e.verdict = learned;
      if (cacheKey && JSON.stringify(learned) !== JSON.stringify(verdict))
        await verdicts!.set(cacheKey, learned);
    }
    return opened;
  }

  async #refresh(e: ServerEntry, ctx: ExecutorRunContext): Promise<void> {
    try {
      const tools = toDiscoveredTools(
        e.name,
        await e.connection!.listTools(MCP_DEFAULTS.timeoutMs, ctx.signal),
        this.index.naming,
      );
      e.stale = false;
      this.index.publish(e, tools, 'refreshed', ctx.emit);
    } catch (err) {
      if (ctx.signal.aborted) return;
      // a listing that cannot be refreshed must not stay live: drop the connection, reconnect later
      const connection = e.connection;
      this.index.drop(e);
      delete e.connection;
      e.retry = true;
      await connection?.close();
      this.registry.setStatus(
        e,
        'failed',
        ctx.emit,
        describeError(err, e.name, 'MCP_OPERATION_FAILED', e.secrets),
      );
    }
  }

  #markStale(e: ServerEntry): void {
    if (e.stale || !this.registry.isLive(e)) return;
    e.stale = true;
    this.config.background(
      mcpEvent({
        type: 'mcp.catalog.updated',
        server: e.name,
        reason: 'stale',
        toolCount: e.tools.length,
      }),
    );
  }

  /** Reports a transport or client error as a sanitized `mcp.diagnostic` event. */
  #diagnostic(e: ServerEntry, error: unknown): void {
    if (!this.registry.isLive(e)) return;
    const err = (error ?? {}) as { name?: unknown; code?: unknown };
    const { message } = describeError(error, e.name, 'MCP_OPERATION_FAILED', e.secrets);
    this.config.background(
      mcpEvent({
        type: 'mcp.diagnostic',
        server: e.name,
        errorName: typeof err.name === 'string' ? err.name : 'Error',
        ...(typeof err.code === 'string' || typeof err.code === 'number' ? { code: err.code } : {}),
        message,
      }),
    );
  }
}
