import type { OAuthSession } from '../../auth/index.js';
import type { NamingMode } from '../../tools/index.js';
import type { SecretRegistry } from '../../util/index.js';
import type { ClientSetup } from '../handlers/client-setup.js';
import { connectOptionsFor } from './connect-options.js';
import type { McpOptions, McpServerConfig } from '../contracts/config-types.js';
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
  /**
   * Per-connection client features (handlers, capabilities, notifications); wins over
   * `client`. `principal`: the setup of that principal's own connection.
   */
  readonly clientFor?: (server: string, principal?: string) => ClientSetup;
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

/** Who a connection is opened for, when it is a principal's (SPEC 15.4). */
export interface OpenAs {
  readonly principal: string;
  /** The principal's own OAuth session (`mcp.oauth[name].perPrincipal`). */
  readonly oauth?: OAuthSession;
  /**
   * What to scrub from this connection's messages: the principal's own registry (its tokens
   * join it, never the server's shared one).
   */
  readonly secrets: SecretRegistry;
}

/**
 * The declaration a connection is built from: a server whose auth provider is a function of
 * the principal gets the provider of `principal` (undefined: the local user's).
 */
function configFor(e: ServerEntry, principal: string | undefined): McpServerConfig {
  const mode = e.perPrincipal;
  if (mode?.kind !== 'provider' || e.config.type !== 'http') return e.config;
  const auth = { type: 'provider', provider: mode.provider(principal) } as const;
  return { ...e.config, auth };
}

/**
 * Opens a connection to the server of `e` (its declaration, the transport limits of
 * `mcp`, its OAuth session, the client features) with `verdict` (undefined: negotiate),
 * and lists its tools; the connection is closed again if listing fails. With `as`, the
 * connection is a principal's: authenticated with the principal's session or provider only,
 * never the entry's own.
 */
export async function openServer(
  e: ServerEntry,
  signal: AbortSignal,
  verdict: ProtocolVerdict | undefined,
  o: ServerOpenOptions,
  as?: OpenAs,
): Promise<Opened> {
  const { options, client } = o;
  const oauth = as ? as.oauth : e.oauth;
  const config = configFor(e, as?.principal);
  const setup = o.clientFor?.(e.name, as?.principal);
  const capabilities = setup?.capabilities ?? client?.capabilities;
  const handlers = setup?.handlers ?? client?.handlers;
  // set once open: errors of the handshake itself are not those of a live connection
  const live: { connection?: McpConnection } = {};
  const connection = await McpConnection.open({
    server: e.name,
    config,
    mode: options.protocol?.mode ?? 'auto',
    ...(verdict ? { verdict } : {}),
    transport: {
      server: e.name,
      maxResponseBytes: options.maxResponseBytes ?? MCP_DEFAULTS.maxResponseBytes,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      stderrBytes: MCP_DEFAULTS.stderrBytes,
      secrets: as ? as.secrets : e.secrets,
      ...(oauth ? { oauth } : {}),
    },
    ...connectOptionsFor(e, options),
    signal,
    ...(capabilities ? { capabilities } : {}),
    ...(handlers ? { handlers } : {}),
    // the Tasks extension (SPEC 15.3): declared where the transport captures task answers, a
    // principal's connection included (its tasks are followed on it)
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
