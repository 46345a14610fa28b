import type { CallToolResult, Client, Tool as McpTool } from '@modelcontextprotocol/client';
import { McpError } from '../errors/index.js';
import { callIsolated } from '../util/index.js';
import { loadClient } from './client-errors.js';
import type { McpFailureReason } from './failure-reasons.js';
import { keepResponsesAfterNotifications } from './response-order.js';
import { FORWARDED, TOOLS_CHANGED, listChangedNotices } from './connection-notices.js';
import { openSdkLink } from './sdk-connection.js';
import { taggedHeaders, watchRequestStreams } from './stream-watch.js';

export type {
  ProtocolVerdict,
  ConnectMode,
  ClientRequestHandler,
  ConnectionSpecOf,
  ConnectionLink,
  CallOptions,
} from './connection-types.js';
import type {
  ProtocolVerdict,
  ConnectionSpecOf,
  ConnectionLink,
  CallOptions,
} from './connection-types.js';

/** What opening a connection needs (see {@link ConnectionSpecOf}). */
export type ConnectionSpec = ConnectionSpecOf<McpConnection>;

const CLIENT_INFO = { name: 'muster', version: '0.1.0' };

/**
 * One live connection to one MCP server through the official client. It owns the client,
 * its transport and (for in-process servers) the server end. Closed by us or by the peer,
 * it releases all of them and fails its calls in flight.
 */
export class McpConnection {
  #closed = false;
  readonly #closeWatchers = new Set<() => void>();
  #released: Promise<void> | undefined;
  /** The calls in flight, by tag: each fails at once when its response can no longer come. */
  readonly #calls = new Map<object, (error: McpError) => void>();
  #watched = false;

  private constructor(
    readonly server: string,
    private readonly client: Client,
    private readonly link: ConnectionLink,
  ) {}

  /** Opens, negotiates and initializes a connection. Rejects with the client's error. */
  static async open(spec: ConnectionSpec): Promise<McpConnection> {
    if (spec.config.type === 'sdk') {
      const link = await openSdkLink(spec.config.server);
      return McpConnection.connect(spec, { transport: link.transport, release: link.close });
    }
    const { createTransport } = await import('./transports/index.js');
    const handle = createTransport(spec.config, spec.transport);
    return McpConnection.connect(spec, {
      transport: handle.transport,
      release: async () => undefined,
      ...(handle.stderrTail ? { stderr: handle.stderrTail.bind(handle) } : {}),
    });
  }

  /** Connects a client over `link` (the transport of {@link open}, or any other). */
  static async connect(spec: ConnectionSpec, link: ConnectionLink): Promise<McpConnection> {
    const { Client } = await loadClient();
    const client = new Client(CLIENT_INFO, {
      capabilities: spec.capabilities ?? {},
      versionNegotiation: { mode: spec.mode as never },
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => {
            spec.onToolsChanged();
            spec.onNotification?.(TOOLS_CHANGED, undefined);
          },
        },
        ...(spec.onNotification ? listChangedNotices(spec.onNotification) : {}),
      },
    });
    for (const h of spec.handlers ?? [])
      client.setRequestHandler(h.method as never, h.handler as never);
    const notify = spec.onNotification;
    if (notify) {
      for (const method of FORWARDED)
        client.setNotificationHandler(
          method as never,
          ((n: { params?: unknown }) => notify(method, n.params)) as never,
        );
    }
    const connection = new McpConnection(spec.server, client, link);
    // Only Streamable HTTP has per-request response streams that can end without an answer;
    // over other transports a loss closes the connection, and the client fails its requests.
    connection.#watched = spec.config.type === 'http';
    const onResponse = connection.#watched
      ? watchRequestStreams(link.transport, (tag) => connection.#fail(tag, 'stream-lost'))
      : undefined;
    keepResponsesAfterNotifications(link.transport, onResponse);
    let open = false;
    client.onclose = () => {
      // a handshake that fails closes the client too; only a connection that was open is "lost"
      if (!open || connection.#closed) return;
      connection.#closed = true;
      connection.#failAll();
      connection.#notifyClosed();
      void connection.#release();
      spec.onUnexpectedClose(connection);
    };
    client.onerror = (error) => {
      if (!connection.#closed) spec.onError?.(error);
    };
    try {
      await client.connect(link.transport, {
        timeout: spec.connectTimeoutMs,
        ...(spec.signal ? { signal: spec.signal } : {}),
        ...(spec.verdict ? { prior: spec.verdict as never } : {}),
      });
    } catch (err) {
      await connection.close();
      throw err;
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
    return this.era === 'modern' && discover ? { kind: 'modern', discover } : undefined;
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

  /**
   * Runs a request on the official client. On a closed connection it fails without being
   * sent (`details.reason: 'not-sent'`).
   */
  async request<T>(send: (client: Client) => Promise<T>): Promise<T> {
    if (this.#closed) throw this.#failure('not-sent');
    return send(this.client);
  }

  /** The latest stderr text of a stdio server, for diagnostics only. */
  stderrTail(): string {
    return this.link.stderr?.() ?? '';
  }

  /** Lists every tool (all pages), bypassing caches. */
  async listTools(timeoutMs: number, signal?: AbortSignal): Promise<McpTool[]> {
    const result = await this.client.listTools(undefined, {
      cacheMode: 'refresh',
      timeout: timeoutMs,
      ...(signal ? { signal } : {}),
    } as never);
    return result.tools;
  }

  /**
   * Calls a tool by its name on the server. Progress resets the per-request timeout. A call
   * on a closed connection fails without being sent (`details.reason: 'not-sent'`); one whose
   * response can no longer arrive (the peer closed, the transport gave up on its stream)
   * fails at once rather than at its timeout.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    if (this.#closed) throw this.#failure('not-sent');
    const request = {
      signal: options.signal,
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: true,
      ...(options.maxTotalTimeoutMs !== undefined
        ? { maxTotalTimeout: options.maxTotalTimeoutMs }
        : {}),
      ...(options.onProgress ? { onprogress: options.onProgress } : {}),
    };
    if (!this.#watched)
      return (await this.client.callTool({ name, arguments: args }, request)) as CallToolResult;
    const tag = {};
    const lost = new Promise<never>((_, reject) => this.#calls.set(tag, reject));
    lost.catch(() => undefined);
    const call = this.client.callTool(
      { name, arguments: args },
      { ...request, headers: taggedHeaders(tag) },
    );
    call.catch(() => undefined);
    try {
      return (await Promise.race([call, lost])) as CallToolResult;
    } finally {
      this.#calls.delete(tag);
    }
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

  /** Closes the client, the transport and any in-process server end. Idempotent. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#failAll();
      this.#notifyClosed();
      await this.client.close().catch(() => undefined);
    }
    await this.#release();
  }

  #release(): Promise<void> {
    this.#released ??= this.link.release().catch(() => undefined);
    return this.#released;
  }

  #fail(tag: object, reason: McpFailureReason): void {
    this.#calls.get(tag)?.(this.#failure(reason));
    this.#calls.delete(tag);
  }

  #notifyClosed(): void {
    const watchers = [...this.#closeWatchers];
    this.#closeWatchers.clear();
    for (const w of watchers) callIsolated(w, undefined);
  }

  #failAll(): void {
    for (const tag of [...this.#calls.keys()]) this.#fail(tag, 'stream-lost');
  }

  #failure(reason: McpFailureReason): McpError {
    const text =
      reason === 'not-sent'
        ? `Server '${this.server}' is not connected: the request was not sent.`
        : `Server '${this.server}' can no longer answer the request: its response stream was lost.`;
    return new McpError(reason === 'not-sent' ? 'MCP_OPERATION_FAILED' : 'MCP_DISCONNECTED', text, {
      server: this.server,
      details: { server: this.server, reason },
    });
  }
}
