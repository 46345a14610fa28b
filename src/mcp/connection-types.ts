// The types of opening and using one connection (see mcp-connection.ts).
import type { ClientCapabilities, Transport } from '@modelcontextprotocol/client';
import type { McpServerConfig } from './config-types.js';
import type { TransportContext } from './transports/transport-types.js';

/** A remembered protocol verdict: reconnects skip the era probe (and its throwaway process). */
export type ProtocolVerdict =
  | { readonly kind: 'legacy' }
  | { readonly kind: 'modern'; readonly discover: unknown };

/** The protocol mode a connection is opened with. */
export type ConnectMode = 'auto' | 'legacy' | { readonly pin: string };

/** A client-side request handler (sampling, elicitation, roots…), installed on the client. */
export interface ClientRequestHandler {
  /** The request method it answers, such as `sampling/createMessage`. */
  readonly method: string;
  readonly handler: (request: unknown, ctx: unknown) => unknown;
}

/** What opening a connection needs. */
export interface ConnectionSpecOf<Connection> {
  readonly server: string;
  readonly config: McpServerConfig;
  readonly mode: ConnectMode;
  /** The verdict of an earlier contact with the same declaration, if any. */
  readonly verdict?: ProtocolVerdict;
  readonly transport: TransportContext;
  readonly connectTimeoutMs: number;
  readonly signal?: AbortSignal;
  /** The client capabilities to declare (default: none). */
  readonly capabilities?: ClientCapabilities;
  /** The client-side request handlers to install (default: none). */
  readonly handlers?: readonly ClientRequestHandler[];
  /** The server said its tool list changed. */
  readonly onToolsChanged: () => void;
  /** Every other notification `listen()` and the handlers care about (list changes included). */
  readonly onNotification?: (method: string, params: unknown) => void;
  /** An open connection closed without `close()` being called (process exit, network loss). */
  readonly onUnexpectedClose: (connection: Connection) => void;
  /** The transport or the client reported an error (raw: the receiver sanitizes it). */
  readonly onError?: (error: unknown) => void;
}

/** The client end of a connection, and how to release what it holds besides the client. */
export interface ConnectionLink {
  readonly transport: Transport;
  /** Releases the rest (an in-process server end); the client closes the transport. */
  readonly release: () => Promise<void>;
  readonly stderr?: () => string;
}

/** Per-call options of `McpConnection.callTool`. */
export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}
