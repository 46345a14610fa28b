import type { ExecutorRunContext } from '../../tools/index.js';
import type { ServerDeclaration } from '../config/config-sources.js';
import type { McpOptions } from '../contracts/config-types.js';
import { clientSetup } from '../handlers/client-setup.js';
import type { ClientFeatures } from '../handlers/client-setup.js';
import { Connector } from '../connection/connector.js';
import { HealthChecks } from '../connection/health-check.js';
import { InFlightCalls } from '../handlers/in-flight-calls.js';
import { NotificationHub } from '../client/notification-hub.js';
import { OperationContext } from './operation-context.js';
import type { ConnectorOptions } from '../connection/connector.js';
import { MCP_DEFAULTS, mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import type { McpEvent } from '../contracts/mcp-events.js';
import type { McpServerStatus } from '../contracts/mcp-status.js';
import { OperationRunner } from '../connection/operation-runner.js';
import { ServerRegistry } from '../connection/server-registry.js';
import { PrincipalConnections } from '../connection/principal-connections.js';
import { PrincipalPool } from '../connection/principal-pool.js';
import { ToolIndex } from '../connection/tool-index.js';
import type { VerdictCache } from '../connection/verdict-cache.js';
import type { ClientRequestHandler } from '../contracts/connection-types.js';

/**
 * The MCP side of an agent, assembled from its parts: the {@link ServerRegistry} (entries,
 * statuses, rules), the {@link Connector} (authorize, open, refresh, lost, reconnect), the
 * {@link ToolIndex} (model-facing names), the {@link OperationRunner} (calls on live
 * connections) and the {@link HealthChecks}. It adds the registry mutations that touch
 * several parts, and closing.
 */
export class McpManager {
  readonly registry: ServerRegistry;
  readonly index: ToolIndex;
  readonly connector: Connector;
  readonly runner: OperationRunner;
  /** Pings of idle connections, and checks of connections a request found failing. */
  readonly health: HealthChecks;
  /** Operations of `agent.mcp` and `McpClientManager` (retries, bounds, redacted failures). */
  readonly ops: OperationContext;
  /** Server notifications, for `listen()` streams. */
  readonly hub = new NotificationHub();
  /** Tool calls in flight, to attribute a server's requests to their run and call. */
  readonly inFlight = new InFlightCalls();
  /** The open connections of principals (SPEC 15.4), bounded across every server. */
  readonly pool: PrincipalPool;
  /** Opens, lists and calls on those connections. */
  readonly principals: PrincipalConnections;
  readonly #background: Emit;
  readonly #lifetime = new AbortController();
  /** The request handlers a connection to a server installs (none for a bare manager). */
  readonly #handlersOf: (server: string, principal?: string) => readonly ClientRequestHandler[];
  /** `mcp.maxResponseBytes`, as configured. */
  readonly maxResponseBytes: number | undefined;
  /** `mcp.tasks.parkAfterMs`, default applied: how long a run polls a task before it parks. */
  readonly parkAfterMs: number;

  constructor(
    declarations: readonly ServerDeclaration[],
    options: McpOptions,
    background: (event: McpEvent) => void,
    verdicts?: VerdictCache,
    client?: ConnectorOptions['client'],
    features?: Omit<ClientFeatures, 'inFlight' | 'hub' | 'background' | 'lifetime'>,
  ) {
    this.#background = background as Emit;
    this.maxResponseBytes = options.maxResponseBytes;
    this.parkAfterMs = options.tasks?.parkAfterMs ?? MCP_DEFAULTS.tasks.parkAfterMs;
    // the handlers and capabilities a connection declares, for the shared client or a principal's
    const setup = features
      ? (server: string, principal?: string) =>
          clientSetup(
            server,
            {
              ...features,
              inFlight: this.inFlight,
              hub: this.hub,
              background: this.#background,
              lifetime: this.#lifetime.signal,
            },
            principal,
          )
      : undefined;
    this.#handlersOf = (server, principal) =>
      setup ? setup(server, principal).handlers : (client?.handlers ?? []);
    this.registry = new ServerRegistry(declarations, options);
    this.index = new ToolIndex(options.names ?? 'safe');
    this.connector = new Connector(this.registry, this.index, {
      options,
      background: this.#background,
      lifetime: this.#lifetime.signal,
      onConnected: () => this.health.start(),
      // a cut stream or a failed send: check now whether the server is still there (a dead
      // one fails its calls in flight at once instead of after the client's stream retries)
      onTransportError: (e, connection) => void this.health.verify(e, connection),
      ...(verdicts ? { verdicts } : {}),
      ...(client ? { client } : {}),
      ...(setup ? { clientFor: setup } : {}),
    });
    this.health = new HealthChecks({
      registry: this.registry,
      settings: this.connector.settings,
      lifetime: this.#lifetime.signal,
      busy: (e) => this.runner.busy(e),
      dead: (e, connection, error) => this.connector.loss.lost(e, connection, error),
      renew: (e, expired) => this.runner.renewSession(e, expired),
    });
    this.runner = new OperationRunner(
      this.registry,
      this.connector,
      this.index,
      options,
      this.#background,
      this.health,
      (server) => this.#handlersOf(server),
    );
    this.ops = new OperationContext(this.runner, this.registry, this.#lifetime.signal);
    this.pool = new PrincipalPool({
      max: options.maxPrincipalConnections ?? MCP_DEFAULTS.maxPrincipalConnections,
      idleMs: options.principalIdleMs ?? MCP_DEFAULTS.principalIdleMs,
      isLive: (e) => this.registry.isLive(e),
    });
    this.principals = new PrincipalConnections(
      this.connector,
      this.pool,
      options,
      this.index.naming,
      {
        handlersOf: (server, principal) => this.#handlersOf(server, principal),
        lifetime: this.#lifetime.signal,
      },
    );
  }

  /**
   * The request handlers of `server`'s connections (elicitation, sampling, roots), for the
   * input requests of an `input_required` round Muster answers itself; with `principal`, of
   * that principal's own connection.
   */
  inputHandlers(server: string, principal?: string): readonly ClientRequestHandler[] {
    return this.#handlersOf(server, principal);
  }

  /** Aborts when this manager closes (bounds work that outlives a run, like pull logins). */
  get lifetime(): AbortSignal {
    return this.#lifetime.signal;
  }

  /** A local snapshot of every server. */
  list(): McpServerStatus[] {
    return this.registry.list();
  }

  /** The declaration a server was registered with. */
  declaration(name: string): ServerDeclaration | undefined {
    return this.registry.declaration(name);
  }

  /** True when a server of this name is registered. */
  has(name: string): boolean {
    return this.registry.has(name);
  }

  /** Adds a declaration; connecting happens in `prepare` or via `connectOne`. */
  add(declaration: ServerDeclaration): void {
    this.registry.add(declaration);
  }

  /**
   * Connects what is not connected yet and refreshes stale listings, after the health checks
   * in flight decided about the connections they suspect.
   */
  prepare(ctx: ExecutorRunContext): Promise<void> {
    // without checks in flight the connects start now, so a connect is busy at once
    if (!this.health.checking) return this.connector.prepare(ctx);
    return this.health.settled().then(() => this.connector.prepare(ctx));
  }

  /** Connects one server now (used by `register`). */
  connectOne(name: string, ctx: ExecutorRunContext): Promise<void> {
    return this.connector.connectOne(name, ctx);
  }

  /** Removes a server, withdrawing its tools, ending its reconnect and closing its connection. */
  async remove(name: string, emit: Emit = this.#background): Promise<void> {
    const e = this.registry.delete(name);
    this.connector.stopReconnect(e);
    e.oauth?.close();
    e.principals?.close();
    this.index.unpublish(e);
    await Promise.all([e.connection?.close(), this.pool.closeServer(name)]);
    emit(mcpEvent({ type: 'mcp.catalog.updated', server: name, reason: 'removed', toolCount: 0 }));
  }

  /** Closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.registry.closed) return;
    // cancels of given-up tasks already sent may finish, for at most a short bound (a slow
    // server never holds a close up for long); none is started: a close never cancels
    await Promise.all([this.runner.tasks.settle(), this.principals.settle()]);
    if (this.registry.closed) return;
    this.registry.close();
    this.health.close();
    this.connector.close();
    this.runner.close();
    this.#lifetime.abort();
    await Promise.allSettled([
      this.pool.close(),
      ...this.registry.entries().map((e) => e.connection?.close()),
    ]);
  }
}
