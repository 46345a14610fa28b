import type { CallToolResult, Client, Tool as McpTool } from '@modelcontextprotocol/client';

/** A remembered protocol verdict: reconnects skip the era probe (and its throwaway process). */
export type ProtocolVerdict =
  | { readonly kind: 'legacy' }
  | { readonly kind: 'modern'; readonly discover: unknown };
import type { McpServerConfig } from './config-types.js';
import { keepResponsesAfterNotifications } from './response-order.js';
import { openSdkLink } from './sdk-connection.js';
import type { TransportContext } from './transports/transport-types.js';

/** The protocol mode a connection is opened with. */
export type ConnectMode = 'auto' | 'legacy' | { readonly pin: string };

/** What opening a connection needs. */
export interface ConnectionSpec {
  readonly server: string;
  readonly config: McpServerConfig;
  readonly mode: ConnectMode;
  /** The verdict of an earlier contact with the same declaration, if any. */
  readonly verdict?: ProtocolVerdict;
  readonly transport: TransportContext;
  readonly connectTimeoutMs: number;
  readonly signal?: AbortSignal;
  /** The server said its tool list changed. */
  readonly onToolsChanged: () => void;
  /** An open connection closed without `close()` being called (process exit, network loss). */
  readonly onUnexpectedClose: (connection: McpConnection) => void;
}

/** Per-call options of {@link McpConnection.callTool}. */
export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

const CLIENT_INFO = { name: 'muster', version: '0.1.0' };

/**
 * One live connection to one MCP server through the official client. It owns the client,
 * its transport and (for in-process servers) the server end.
 */
export class McpConnection {
  #closing = false;

  private constructor(
    readonly server: string,
    private readonly client: Client,
    private readonly release: () => Promise<void>,
    private readonly stderr: (() => string) | undefined,
  ) {}

  /** Opens, negotiates and initializes a connection. Rejects with the client's error. */
  static async open(spec: ConnectionSpec): Promise<McpConnection> {
    const { Client } = await import('@modelcontextprotocol/client');
    const client = new Client(CLIENT_INFO, {
      versionNegotiation: { mode: spec.mode as never },
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => spec.onToolsChanged() },
      },
    });
    let release: () => Promise<void> = async () => undefined;
    let stderr: (() => string) | undefined;
    let transport;
    if (spec.config.type === 'sdk') {
      const link = await openSdkLink(spec.config.server);
      transport = link.transport;
      release = () => link.close();
    } else {
      const { createTransport } = await import('./transports/index.js');
      const handle = createTransport(spec.config, spec.transport);
      transport = handle.transport;
      stderr = handle.stderrTail?.bind(handle);
    }
    keepResponsesAfterNotifications(transport);
    const connection = new McpConnection(spec.server, client, release, stderr);
    let open = false;
    client.onclose = () => {
      // a handshake that fails closes the client too; only a connection that was open is "lost"
      if (open && !connection.#closing) spec.onUnexpectedClose(connection);
    };
    client.onerror = () => undefined;
    try {
      await client.connect(transport, {
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

  /** The latest stderr text of a stdio server, for diagnostics only. */
  stderrTail(): string {
    return this.stderr?.() ?? '';
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

  /** Calls a tool by its name on the server. Progress resets the per-request timeout. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    return (await this.client.callTool(
      { name, arguments: args },
      {
        signal: options.signal,
        timeout: options.timeoutMs,
        resetTimeoutOnProgress: true,
        ...(options.maxTotalTimeoutMs !== undefined
          ? { maxTotalTimeout: options.maxTotalTimeoutMs }
          : {}),
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      },
    )) as CallToolResult;
  }

  /** True once closed, by us or by the peer. */
  get closed(): boolean {
    return this.#closing;
  }

  /** Closes the client, the transport and any in-process server end. Idempotent. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    await this.client.close().catch(() => undefined);
    await this.release().catch(() => undefined);
  }
}
