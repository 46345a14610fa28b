import type { CallToolResult } from '@modelcontextprotocol/client';
import { MusterError, ToolError } from '../errors/index.js';
import type {
  ExecutorEvent,
  ExecutorRunContext,
  NamingMode,
  ToolDefinition,
} from '../tools/index.js';
import { mapWithConcurrency } from './concurrency.js';
import type { McpOptions, McpTransportType } from './config-types.js';
import { transportOf } from './config-sources.js';
import type { ServerDeclaration } from './config-sources.js';
import { McpConnection } from './mcp-connection.js';
import type { ProtocolVerdict } from './mcp-connection.js';
import { FileVerdictCache } from './verdict-cache.js';
import type { VerdictCache } from './verdict-cache.js';
import type { CallOptions } from './mcp-connection.js';
import { toDiscoveredTools } from './mcp-discovery.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import type { McpEvent } from './mcp-events.js';
import type { McpServerStatus } from './mcp-status.js';
import { classifyCallError, describeError } from './mcp-errors.js';
import { redact } from '../util/index.js';
import { secretsOf } from './redact.js';
import { snapshot } from './server-entry.js';
import type { ServerEntry } from './server-entry.js';

/** Defaults of SPEC section 7. */
export const MCP_DEFAULTS = Object.freeze({
  startupConcurrency: 4,
  maxResponseBytes: 8 * 1024 * 1024,
  archiveThresholdBytes: 16 * 1024,
  timeoutMs: 60_000,
  connectTimeoutMs: 30_000,
  stderrBytes: 8 * 1024,
  transports: ['stdio', 'http', 'sdk'] as readonly McpTransportType[],
});

/** Where events go: the current run, or the agent's observers between runs. */
type Emit = (event: ExecutorEvent) => void;

/**
 * The registry of MCP servers and their live connections: lazy, bounded, isolated connects
 * authorized as `mcp_connect:<server>`; discovery into catalog tools; calls; lifecycle.
 */
export class McpManager {
  readonly #entries = new Map<string, ServerEntry>();
  readonly #byTool = new Map<string, { entry: ServerEntry; tool: DiscoveredTool }>();
  readonly #options: McpOptions;
  readonly #background: (event: McpEvent) => void;
  readonly #verdicts: VerdictCache | undefined;
  #closed = false;

  constructor(
    declarations: readonly ServerDeclaration[],
    options: McpOptions,
    background: (event: McpEvent) => void,
    verdicts?: VerdictCache,
  ) {
    this.#options = options;
    this.#verdicts = verdicts;
    this.#background = background;
    for (const d of declarations) this.#add(d);
  }

  /** A local snapshot of every server. */
  list(): McpServerStatus[] {
    return [...this.#entries.values()].map(snapshot);
  }

  /** The declaration a server was registered with. */
  declaration(name: string): ServerDeclaration | undefined {
    const e = this.#entries.get(name);
    return e
      ? { name: e.name, source: e.source, where: 'agent.mcp', config: e.config, key: e.key }
      : undefined;
  }

  /** True when a server of this name is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** The tools of connected servers, as the run's catalog will see them. */
  toolDefinitions(): ToolDefinition[] {
    return [...this.#byTool.values()].map((t) => t.tool.definition);
  }

  /** Which server and original name a model-facing tool name belongs to. */
  toolOrigin(name: string): { server: string; originalName: string } | undefined {
    const hit = this.#byTool.get(name);
    return hit ? { server: hit.entry.name, originalName: hit.tool.originalName } : undefined;
  }

  /** Connects what is not connected yet (authorized, bounded, isolated) and refreshes stale listings. */
  async prepare(ctx: ExecutorRunContext): Promise<void> {
    const todo = [...this.#entries.values()].filter(
      (e) => !e.blocked && (e.busy || e.retry || (e.status === 'connected' && e.stale)),
    );
    const limit = this.#options.startupConcurrency ?? MCP_DEFAULTS.startupConcurrency;
    // One connect (or refresh) per server at a time: a second run waits for the one in flight.
    await mapWithConcurrency(todo, limit, (e) =>
      this.#once(e, () =>
        e.status === 'connected' && e.stale
          ? this.#refresh(e, ctx.emit, ctx)
          : this.#connect(e, ctx),
      ),
    );
  }

  #once(e: ServerEntry, work: () => Promise<void>): Promise<void> {
    if (e.busy) return e.busy;
    const busy: Promise<void> = work().finally(() => {
      if (e.busy === busy) delete e.busy;
    });
    e.busy = busy;
    return busy;
  }

  /** Calls a tool by its model-facing name. Tool-level failures throw `ToolError`s. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: Omit<CallOptions, 'timeoutMs'>,
  ): Promise<CallToolResult> {
    const hit = this.#byTool.get(name);
    const connection = hit?.entry.connection;
    if (!hit || !connection || connection.closed) {
      throw new ToolError(
        'TOOL_EXECUTION_FAILED',
        `The server of '${name}' is not connected; the call was not sent.`,
        { toolName: name },
      );
    }
    const entry = hit.entry;
    const timeoutMs =
      (entry.config.type === 'http' ? entry.config.timeoutMs : undefined) ??
      this.#options.operation?.timeoutMs ??
      MCP_DEFAULTS.timeoutMs;
    const maxTotal = this.#options.operation?.maxTotalTimeoutMs;
    const call = (c: McpConnection) =>
      c.callTool(hit.tool.originalName, args, {
        ...options,
        timeoutMs,
        ...(maxTotal !== undefined ? { maxTotalTimeoutMs: maxTotal } : {}),
      });
    const classify = (err: unknown) =>
      classifyCallError(err, {
        toolName: name,
        server: entry.name,
        signal: options.signal,
        timeoutMs,
        secrets: entry.secrets,
      });
    try {
      return await call(connection);
    } catch (err) {
      // An expired HTTP session (404) means the server never saw the call: start a new
      // session and send it once more, without the caller noticing.
      if (entry.type !== 'http' || !sessionExpired(err) || options.signal.aborted)
        throw classify(err);
      const fresh = await this.#renewSession(entry, connection, options.signal).catch(
        () => undefined,
      );
      if (!fresh) throw classify(err);
      try {
        return await call(fresh);
      } catch (again) {
        throw classify(again);
      }
    }
  }

  /** Replaces a connection whose HTTP session expired; concurrent callers share the renewal. */
  #renewSession(
    e: ServerEntry,
    expired: McpConnection,
    signal: AbortSignal,
  ): Promise<McpConnection> {
    if (e.connection && e.connection !== expired) return Promise.resolve(e.connection);
    e.renewing ??= (async () => {
      try {
        const { connection, tools } = await this.#open(e, signal, e.verdict);
        if (this.#closed || this.#entries.get(e.name) !== e) {
          await connection.close();
          throw new Error('closed');
        }
        e.connection = connection;
        await expired.close();
        this.#publish(e, tools, 'refreshed', this.#background as Emit);
        return connection;
      } finally {
        delete e.renewing;
      }
    })();
    return e.renewing;
  }

  /** Adds a declaration (registry mutation); connecting happens in `prepare` or via `connectOne`. */
  add(declaration: ServerDeclaration): void {
    if (this.#entries.has(declaration.name)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `MCP server '${declaration.name}' is already registered: unregister it first.`,
        {
          details: { server: declaration.name },
        },
      );
    }
    this.#add(declaration);
  }

  /** Connects one server now (used by `register`). */
  async connectOne(name: string, ctx: ExecutorRunContext): Promise<void> {
    const e = this.#entries.get(name);
    if (e && !e.blocked) await this.#once(e, () => this.#connect(e, ctx));
  }

  /** Removes a server, closing its connection. */
  async remove(name: string, emit: Emit = this.#background as Emit): Promise<void> {
    const e = this.#entries.get(name);
    if (!e)
      throw new MusterError('INVALID_CONFIGURATION', `No MCP server is registered as '${name}'.`, {
        details: { server: name },
      });
    this.#entries.delete(name);
    this.#unpublish(e);
    await e.connection?.close();
    emit(event({ type: 'mcp.catalog.updated', server: name, reason: 'removed', toolCount: 0 }));
  }

  /** Closes every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#entries.values()].map((e) => e.connection?.close()));
  }

  #add(d: ServerDeclaration): void {
    const type = transportOf(d.config);
    const allowedTransports = this.#options.transports ?? MCP_DEFAULTS.transports;
    const allowed = this.#options.allowedServers;
    let blocked: string | undefined;
    if (!allowedTransports.includes(type))
      blocked = `the ${type} transport is not in mcp.transports`;
    else if (type !== 'sdk' && allowed !== undefined && !allowed.includes(d.name))
      blocked = 'not in mcp.allowedServers';
    this.#entries.set(d.name, {
      name: d.name,
      source: d.source,
      config: d.config,
      type,
      key: d.key,
      secrets: secretsOf(d.config),
      status: blocked ? 'disabled' : 'pending',
      ...(blocked
        ? {
            blocked,
            error: {
              code: 'INVALID_CONFIGURATION',
              message: `Server '${d.name}' is disabled: ${blocked}.`,
            },
          }
        : {}),
      retry: !blocked,
      tools: [],
      stale: false,
    });
  }

  async #connect(e: ServerEntry, ctx: ExecutorRunContext): Promise<void> {
    if (this.#closed) return;
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
      this.#setStatus(e, 'disabled', ctx.emit, {
        code: decision.code ?? 'TOOL_DENIED',
        message: `Connecting to '${e.name}' was not authorized (${decision.reason ?? decision.stage}).`,
      });
      return;
    }
    e.retry = false;
    this.#setStatus(e, 'connecting', ctx.emit);
    const auto = (this.#options.protocol?.mode ?? 'auto') === 'auto';
    const cacheKey =
      auto && e.type !== 'sdk' && this.#verdicts ? FileVerdictCache.keyOf(e.key) : undefined;
    let verdict = auto
      ? (e.verdict ?? (cacheKey ? await this.#verdicts!.get(cacheKey) : undefined))
      : undefined;
    try {
      let opened: { connection: McpConnection; tools: DiscoveredTool[] };
      try {
        opened = await this.#open(e, ctx.signal, verdict);
      } catch (err) {
        // A remembered verdict may be stale (the server changed): forget it and negotiate again.
        if (!verdict || ctx.signal.aborted) throw err;
        verdict = undefined;
        delete e.verdict;
        if (cacheKey) await this.#verdicts!.delete(cacheKey);
        opened = await this.#open(e, ctx.signal, undefined);
      }
      const { connection, tools } = opened;
      if (this.#closed || this.#entries.get(e.name) !== e) {
        // closed or unregistered while connecting: nothing may keep this connection alive
        await connection.close();
        return;
      }
      e.connection = connection;
      e.protocolVersion = connection.protocolVersion;
      e.era = connection.era;
      const learned = connection.verdict;
      if (learned) {
        e.verdict = learned;
        if (cacheKey && JSON.stringify(learned) !== JSON.stringify(verdict))
          await this.#verdicts!.set(cacheKey, learned);
      }
      delete e.error;
      this.#setStatus(e, 'connected', ctx.emit);
      this.#publish(e, tools, 'discovered', ctx.emit);
    } catch (err) {
      if (ctx.signal.aborted) {
        // the run was aborted, not the server: try again at the next run
        e.retry = true;
        this.#setStatus(e, 'pending', ctx.emit);
        return;
      }
      this.#setStatus(
        e,
        'failed',
        ctx.emit,
        describeError(err, e.name, 'MCP_CONNECTION_FAILED', e.secrets),
      );
    }
  }

  async #open(
    e: ServerEntry,
    signal: AbortSignal,
    verdict: ProtocolVerdict | undefined,
  ): Promise<{ connection: McpConnection; tools: DiscoveredTool[] }> {
    const connection = await McpConnection.open({
      server: e.name,
      config: e.config,
      mode: this.#options.protocol?.mode ?? 'auto',
      ...(verdict ? { verdict } : {}),
      transport: {
        server: e.name,
        maxResponseBytes: this.#options.maxResponseBytes ?? MCP_DEFAULTS.maxResponseBytes,
        ...(this.#options.sandbox ? { sandbox: this.#options.sandbox } : {}),
        stderrBytes: MCP_DEFAULTS.stderrBytes,
      },
      connectTimeoutMs: MCP_DEFAULTS.connectTimeoutMs,
      signal,
      onToolsChanged: () => this.#markStale(e),
      onUnexpectedClose: (closed) => this.#lost(e, closed),
    });
    try {
      const tools = toDiscoveredTools(
        e.name,
        await connection.listTools(MCP_DEFAULTS.timeoutMs, signal),
        this.#naming(),
      );
      return { connection, tools };
    } catch (err) {
      await connection.close();
      throw err;
    }
  }

  async #refresh(e: ServerEntry, emit: Emit, ctx: ExecutorRunContext): Promise<void> {
    try {
      const tools = toDiscoveredTools(
        e.name,
        await e.connection!.listTools(MCP_DEFAULTS.timeoutMs, ctx.signal),
        this.#naming(),
      );
      e.stale = false;
      this.#publish(e, tools, 'refreshed', emit);
    } catch (err) {
      if (ctx.signal.aborted) return;
      // a listing that cannot be refreshed must not stay live: drop the connection, reconnect later
      const connection = e.connection;
      this.#unpublish(e);
      e.tools = [];
      delete e.connection;
      e.retry = true;
      await connection?.close();
      this.#setStatus(
        e,
        'failed',
        emit,
        describeError(err, e.name, 'MCP_OPERATION_FAILED', e.secrets),
      );
    }
  }

  #publish(
    e: ServerEntry,
    tools: DiscoveredTool[],
    reason: 'discovered' | 'refreshed',
    emit: Emit,
  ): void {
    this.#unpublish(e);
    e.tools = tools;
    for (const tool of tools) {
      this.#byTool.set(tool.name, { entry: e, tool });
      emit(
        event({
          type: 'mcp.tool.discovered',
          server: e.name,
          toolName: tool.name,
          originalName: tool.originalName,
        }),
      );
    }
    emit(event({ type: 'mcp.catalog.updated', server: e.name, reason, toolCount: tools.length }));
  }

  #unpublish(e: ServerEntry): void {
    for (const tool of e.tools)
      if (this.#byTool.get(tool.name)?.entry === e) this.#byTool.delete(tool.name);
  }

  #markStale(e: ServerEntry): void {
    if (e.stale || this.#entries.get(e.name) !== e) return;
    e.stale = true;
    this.#background(
      event({
        type: 'mcp.catalog.updated',
        server: e.name,
        reason: 'stale',
        toolCount: e.tools.length,
      }) as McpEvent,
    );
  }

  #lost(e: ServerEntry, closed: McpConnection): void {
    if (this.#closed || this.#entries.get(e.name) !== e || e.connection !== closed) return;
    this.#unpublish(e);
    e.tools = [];
    delete e.connection;
    e.retry = true;
    this.#setStatus(e, 'failed', this.#background as Emit, {
      code: 'MCP_DISCONNECTED',
      message: `Server '${e.name}' disconnected; it will be reconnected at the next run.`,
    });
  }

  #setStatus(
    e: ServerEntry,
    status: ServerEntry['status'],
    emit: Emit,
    error?: { code: string; message: string },
  ): void {
    e.status = status;
    if (error) e.error = { code: error.code, message: redact(error.message, e.secrets) };
    emit(
      event({
        type: 'mcp.server.status',
        server: e.name,
        status,
        ...(status === 'connected' && e.protocolVersion
          ? { protocolVersion: e.protocolVersion }
          : {}),
        ...(status === 'connected' && e.era ? { era: e.era } : {}),
        ...(error ? { error: e.error } : {}),
      }),
    );
  }

  #naming(): NamingMode {
    return this.#options.names ?? 'safe';
  }
}

function event<T extends Omit<McpEvent, 'timestamp' | 'sessionId' | 'runId'>>(
  fields: T,
): T & ExecutorEvent {
  return { ...fields, timestamp: new Date().toISOString(), sessionId: '', runId: '' };
}

/** True for the client's answer to an expired Streamable HTTP session (HTTP 404). */
function sessionExpired(err: unknown): boolean {
  for (
    let e: unknown = err, depth = 0;
    e && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    if ((e as { status?: unknown }).status === 404) return true;
  }
  return false;
}
