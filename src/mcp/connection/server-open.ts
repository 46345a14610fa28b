import type { NamingMode } from '../../tools/index.js';
import type { ClientSetup } from '../handlers/client-setup.js';
import { connectOptionsFor } from './connect-options.js';
import type { McpOptions } from '../contracts/config-types.js';
import { McpConnection } from '../client/mcp-connection.js';
import type { ClientRequestHandler, ProtocolVerdict } from '../client/mcp-connection.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import { toDiscoveredTools } from './mcp-discovery.js';
import type { ServerEntry } from './server-entry.js';
import type { Opened } from './verdict-open.js';

/** What opening one connection of a server needs. */
export interface ServerOpenOptions {
  readonly options: McpOptions;
  /** The client capabilities and request handlers every connection declares. */
  readonly client?: {
    readonly capabilities?: Record<string, unknown>;
    readonly handlers?: readonly ClientRequestHandler[];
  };
  /** Per-server client features (handlers, capabilities, notifications); wins over `client`. */
  readonly clientFor?: (server: string) => ClientSetup;
  readonly naming: NamingMode;
  /** The server said its tool list changed. */
  readonly onToolsChanged: () => void;
  /** The open connection closed without `close()` being called. */
  readonly onLost: (closed: McpConnection) => void;
  /** The transport or the client reported an error (raw: the receiver sanitizes it). */
  readonly onError: (error: unknown) => void;
  /** The same, once the connection is open (the connection may be gone). */
  readonly onTransportError?: (e: ServerEntry, connection: McpConnection) => void;
}

/**
 * Opens a connection to the server of `e` (its declaration, the transport limits of
 * `mcp`, its OAuth session, the client features) with `verdict` (undefined: negotiate),
 * and lists its tools; the connection is closed again if listing fails.
 */
export async function openServer(
  e: ServerEntry,
  signal: AbortSignal,
  verdict: ProtocolVerdict | undefined,
  o: ServerOpenOptions,
): Promise<Opened> {
  const { options, client } = o;
  const setup = o.clientFor?.(e.name);
  const capabilities = setup?.capabilities ?? client?.capabilities;
  const handlers = setup?.handlers ?? client?.handlers;
  // set once open: errors of the handshake itself are not those of a live connection
  const live: { connection?: McpConnection } = {};
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
    // the Tasks extension (SPEC 15.3): declared where the transport captures task answers
    tasks: true,
    ...(setup ? { onNotification: setup.onNotification } : {}),
    onToolsChanged: o.onToolsChanged,
    onUnexpectedClose: o.onLost,
    onError: (error) => {
      o.onError(error);
      if (live.connection) o.onTransportError?.(e, live.connection);
    },
  });
  live.connection = connection;
  try {
    const tools = toDiscoveredTools(
      e.name,
      await connection.listTools(MCP_DEFAULTS.timeoutMs, signal),
      o.naming,
      connection.tasksOffered,
    );
    return { connection, tools };
  } catch (err) {
    // an aborted run waits for no graceful exit
    await connection.close({ force: signal.aborted });
    throw err;
  }
}
