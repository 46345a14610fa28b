import { oauthReasonOf } from '../../auth/index.js';
import type { ExecutorRunContext } from '../../tools/index.js';
import { needsSignIn, signInAskedFor } from './auth-connect.js';
import { mapWithConcurrency } from './concurrency.js';
import { connectionSummary } from './connection-summary.js';
import type { McpConnection, ProtocolVerdict } from '../client/mcp-connection.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import { toDiscoveredTools } from './mcp-discovery.js';
import { describeError } from '../failures/mcp-errors.js';
import { ConnectionLoss } from './connection-loss.js';
import { reconnectSettings } from './reconnect.js';
import type { ReconnectSettings } from './reconnect.js';
import type { ServerEntry } from './server-entry.js';
import { emitDiagnostic, markStale } from './server-events.js';
import { openServer } from './server-open.js';
import type { OpenAs, ServerOpenOptions } from './server-open.js';
import type { ServerRegistry } from './server-registry.js';
import { restoreSession } from './session-state.js';
import type { ToolIndex } from './tool-index.js';
import type { VerdictCache } from './verdict-cache.js';
import { openWithVerdict } from './verdict-open.js';
import type { Opened } from './verdict-open.js';

/** What the connector needs besides the registry and the tool index. */
export interface ConnectorOptions extends Pick<
  ServerOpenOptions,
  'options' | 'client' | 'clientFor' | 'onTransportError'
> {
  /** Events outside any run (status changes of lost connections, diagnostics). */
  readonly background: Emit;
  readonly verdicts?: VerdictCache;
  /** Aborts when the owner closes: bounds pull-mode logins and background reconnects. */
  readonly lifetime?: AbortSignal;
  /** A server got a new live connection (starts the health checks). */
  readonly onConnected?: (e: ServerEntry) => void;
}

const NEVER = new AbortController().signal;

/**
 * Brings servers online: authorizes `mcp_connect:<server>`, opens connections (bounded,
 * isolated, with remembered protocol verdicts), publishes their tools, refreshes stale
 * listings, and takes down what was lost: reconnected at the next use, or in the background
 * with `mcp.reconnect.enabled` (see {@link ConnectionLoss}).
 */
export class Connector {
  /** `mcp.reconnect`, defaults applied. */
  readonly settings: ReconnectSettings;
  /** What happens to lost connections (and their background reconnects). */
  readonly loss: ConnectionLoss;

  constructor(
    private readonly registry: ServerRegistry,
    private readonly index: ToolIndex,
    private readonly config: ConnectorOptions,
  ) {
    this.settings = reconnectSettings(config.options.reconnect);
    this.loss = new ConnectionLoss({
      registry,
      index,
      settings: this.settings,
      background: config.background,
      lifetime: config.lifetime ?? NEVER,
      reopen: (e, signal) => this.#reopen(e, signal),
      diagnostic: (e, error) => this.#diagnostic(e, error),
    });
  }

  get #reconnector() {
    return this.loss.reconnector;
  }

  /**
   * Connects what is not connected yet and refreshes stale listings (one job per server). A
   * server reconnecting in the background makes its next attempt now, and is waited for.
   */
  async prepare(ctx: ExecutorRunContext): Promise<void> {
    // a principal's run uses its own connections to the servers that sign each user in: it
    // neither opens nor signs in the local user's (see PrincipalConnections)
    const principal = ctx.principal !== undefined;
    const todo = this.registry
      .entries()
      .filter(
        (e) =>
          !e.blocked &&
          !(principal && e.perPrincipal) &&
          (e.busy ||
            e.retry ||
            this.#reconnector.active(e) ||
            (e.status === 'connected' && e.stale)),
      );
    const limit = this.config.options.startupConcurrency ?? MCP_DEFAULTS.startupConcurrency;
    // One connect (or refresh) per server at a time: a second run waits for the one in flight.
    await mapWithConcurrency(todo, limit, (e) =>
      this.#reconnector.active(e)
        ? this.#reconnector.nudge(e, ctx.signal)
        : this.#once(e, () =>
            e.status === 'connected' && e.stale ? this.#refresh(e, ctx) : this.#connect(e, ctx),
          ),
    );
    // the verdicts learned are on disk when the servers are ready (one write for them all)
    await this.config.verdicts?.settled();
  }

  /** Connects one server now (used by `register` and operations on a server not connected). */
  async connectOne(name: string, ctx: ExecutorRunContext): Promise<void> {
    const e = this.registry.get(name);
    if (!e || e.blocked) return;
    if (this.#reconnector.active(e)) await this.#reconnector.nudge(e, ctx.signal);
    else await this.#once(e, () => this.#connect(e, ctx));
    await this.config.verdicts?.settled();
  }

  /** Opens a connection to a server and lists its tools (see {@link openServer}). */
  open(e: ServerEntry, signal: AbortSignal, verdict: ProtocolVerdict | undefined): Promise<Opened> {
    return openServer(e, signal, verdict, {
      ...this.config,
      naming: this.index.naming,
      onToolsChanged: () => {
        if (this.registry.isLive(e)) markStale(e, this.config.background);
      },
      onLost: (closed) => this.lost(e, closed),
      onError: (error) => this.#diagnostic(e, error),
    });
  }

  /**
   * Opens a principal's connection to the server of `e` (see {@link openServer} with `as`),
   * with the entry's protocol verdict when known. Its losses and tool changes go to `hooks`,
   * never to the entry: the entry's status and listing are the local user's.
   */
  openFor(
    e: ServerEntry,
    as: OpenAs,
    signal: AbortSignal,
    hooks: { readonly onLost: () => void; readonly onToolsChanged: () => void },
  ): Promise<Opened> {
    // no health check of the shared connection for a principal's transport error
    const { onTransportError: _shared, ...config } = this.config;
    return openServer(
      e,
      signal,
      e.verdict,
      {
        ...config,
        naming: this.index.naming,
        onToolsChanged: hooks.onToolsChanged,
        onLost: () => hooks.onLost(),
        onError: (error) => this.#diagnostic(e, error),
      },
      as,
    );
  }

  /** Takes down a connection that closed on its own (see {@link ConnectionLoss.lost}). */
  lost(e: ServerEntry, closed: McpConnection): void {
    this.loss.lost(e, closed);
  }

  /** Cancels a background reconnect of `e` (unregister, update, disconnect); true if one ran. */
  stopReconnect(e: ServerEntry): boolean {
    return this.#reconnector.stop(e);
  }

  /** Cancels every background reconnect. */
  close(): void {
    this.#reconnector.close();
  }

  /**
   * Tells a new connection what the host asked of the previous ones (subscriptions, logging
   * level); failures become diagnostics.
   */
  restore(e: ServerEntry, connection: McpConnection, signal: AbortSignal): Promise<void> {
    return restoreSession(e, connection, { signal, timeoutMs: MCP_DEFAULTS.timeoutMs }, (err) => {
      if (!signal.aborted) this.#diagnostic(e, err);
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
      connection: connectionSummary(e, this.config.options.sandbox),
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
      const opened = await this.#openWithVerdict(e, ctx.signal, true);
      await this.#install(e, opened, ctx.signal, ctx.emit, 'discovered');
    } catch (err) {
      if (ctx.signal.aborted) {
        // the run was aborted, not the server: try again at the next run
        e.retry = true;
        this.registry.setStatus(e, 'pending', ctx.emit);
        return;
      }
      // a server with no credentials that answered 401 asks for a sign-in too
      const asked = signInAskedFor(e, err);
      const signIn = asked !== undefined || needsSignIn(err);
      // a sign-in waiting for its callback must not be replaced by the next run's connect;
      // authenticate() reports the reason as details.reason of its error
      e.retry = signIn && !e.oauth?.waiting;
      e.authReason = oauthReasonOf(err);
      const error = asked ?? describeError(err, e.name, 'MCP_CONNECTION_FAILED', e.secrets);
      this.registry.setStatus(e, signIn ? 'needs-auth' : 'failed', ctx.emit, error);
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

  /** Opens with the remembered verdict (see {@link openWithVerdict}). */
  #openWithVerdict(e: ServerEntry, signal: AbortSignal, signIn: boolean): Promise<Opened> {
    const { options, verdicts, lifetime } = this.config;
    return openWithVerdict(
      e,
      {
        registry: this.registry,
        options,
        ...(verdicts ? { verdicts } : {}),
        open: (entry, s, verdict) => this.open(entry, s, verdict),
        lifetime: lifetime ?? signal,
      },
      signal,
      signIn,
    );
  }

  /**
   * Makes `opened` the live connection of `e`: subscriptions and logging level restored, then
   * `connected` and its tools published (`refreshed`: a background reconnect). An entry closed
   * or removed meanwhile gets nothing: the connection is closed (nothing may keep it alive).
   */
  async #install(
    e: ServerEntry,
    { connection, tools }: Opened,
    signal: AbortSignal,
    emit: Emit,
    reason: 'discovered' | 'refreshed',
  ): Promise<boolean> {
    if (this.registry.isLive(e)) await this.restore(e, connection, signal);
    // a background reconnect that was cancelled (disconnect, update) installs nothing either
    if (!this.registry.isLive(e) || (reason === 'refreshed' && signal.aborted)) {
      await connection.close();
      return false;
    }
    e.connection = connection;
    e.protocolVersion = connection.protocolVersion;
    e.era = connection.era;
    delete e.error;
    this.registry.setStatus(e, 'connected', emit);
    this.index.publish(e, tools, reason, emit);
    this.config.onConnected?.(e);
    return true;
  }

  /**
   * One background reconnect (no new authorization, no login: see the decisions): true when
   * `e` is connected after it. Runs as the entry's one connect in flight.
   */
  async #reopen(e: ServerEntry, signal: AbortSignal): Promise<boolean> {
    let failure: { error: unknown } | undefined;
    await this.#once(e, async () => {
      if (!this.registry.isLive(e) || (e.connection && !e.connection.closed)) return;
      try {
        const opened = await this.#openWithVerdict(e, signal, false);
        await this.#install(e, opened, signal, this.config.background, 'refreshed');
      } catch (error) {
        failure = { error };
      }
    });
    if (failure) throw failure.error;
    return this.registry.isLive(e) && e.connection !== undefined && !e.connection.closed;
  }

  async #refresh(e: ServerEntry, ctx: ExecutorRunContext): Promise<void> {
    try {
      const tools = toDiscoveredTools(
        e.name,
        await e.connection!.listTools(MCP_DEFAULTS.timeoutMs, ctx.signal),
        this.index.naming,
        e.connection!.tasksOffered,
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

  #diagnostic(e: ServerEntry, error: unknown): void {
    if (this.registry.isLive(e)) emitDiagnostic(e, error, this.config.background);
  }
}
