import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { OAuthFailureReason, OAuthSession, PrincipalSessions } from '../../auth/index.js';
import type { SecretRegistry } from '../../util/index.js';
import type {
  McpServerConfig,
  McpServerSource,
  McpTransportType,
} from '../contracts/config-types.js';
import type { McpConnection, ProtocolVerdict, ServerProcess } from '../client/mcp-connection.js';
import type { DiscoveredTool } from './mcp-discovery.js';
import type { PrincipalMode } from '../config/principal-mode.js';
import type { McpServerStatus, McpServerStatusValue } from '../contracts/mcp-status.js';

/**
 * What the host asked of a server's session through `subscribeResource` and
 * `setLoggingLevel`: a new session (a reconnect, a renewed HTTP session) is told again.
 */
export interface RememberedSession {
  readonly subscriptions: Set<string>;
  loggingLevel?: LoggingLevel;
}

/** What the registry keeps about one server. */
export interface ServerEntry {
  readonly name: string;
  readonly source: McpServerSource;
  readonly config: McpServerConfig;
  readonly type: McpTransportType;
  /** The normalized declaration (see `normalizedKey`). */
  readonly key: string;
  /** Values to scrub from every message about this server; grows (issued tokens). */
  readonly secrets: SecretRegistry;
  status: McpServerStatusValue;
  error?: { code: string; message: string };
  /** Set when the server may not connect at all (allow-list, transport), with the reason. */
  blocked?: string;
  /** True when a later run should try to connect again (pending, denied, disconnected). */
  retry: boolean;
  connection?: McpConnection;
  /** The connect or refresh in flight, which later runs wait for. */
  busy?: Promise<void>;
  /** A new HTTP session being opened after the old one expired. */
  renewing?: Promise<McpConnection>;
  tools: DiscoveredTool[];
  stale: boolean;
  /** The protocol verdict of the first successful contact, reused for reconnects. */
  verdict?: ProtocolVerdict;
  protocolVersion?: string;
  era?: 'modern' | 'legacy';
  /** OAuth of this server (`mcp.oauth[name]`), when it has any. */
  readonly oauth?: OAuthSession;
  /**
   * The OAuth sessions of principals (SPEC 15.4) signing in to this server, when it has an
   * `mcp.oauth` entry: each over the principal's own namespace of the token store.
   */
  readonly principals?: PrincipalSessions;
  /**
   * How this server authenticates per principal (SPEC 15.4), when it does: a run acting for a
   * principal then uses that principal's pooled connection, never {@link connection}.
   */
  readonly perPrincipal?: PrincipalMode;
  /** The `details.reason` of the last sign-in failure, for `authenticate()` to report. */
  authReason?: OAuthFailureReason;
  /** The latest stdio process of this server (stderr, exit), for `diagnostics()` only. */
  process?: ServerProcess;
  /** Subscriptions and logging level to restore on every new connection of this entry. */
  remembered?: RememberedSession;
}

/** A snapshot of an entry for `list()`: no I/O, no secrets. */
export function snapshot(e: ServerEntry): McpServerStatus {
  return {
    name: e.name,
    source: e.source,
    type: e.type,
    status: e.status,
    ...(e.protocolVersion ? { protocolVersion: e.protocolVersion } : {}),
    ...(e.era ? { era: e.era } : {}),
    tools: e.tools.map((t) => ({
      name: t.name,
      originalName: t.originalName,
      ...(t.definition.annotations ? { annotations: { ...t.definition.annotations } } : {}),
      stale: e.stale,
    })),
    ...(e.error ? { error: { ...e.error } } : {}),
  };
}
