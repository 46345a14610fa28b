// The types of opening and using one connection (see mcp-connection.ts).
import type { Client, ClientCapabilities, Transport } from '@modelcontextprotocol/client';
import type { McpServerConfig } from './config-types.js';
import type { ProcessExit } from '../failures/exit-status.js';
import type { TransportContext } from './transport-types.js';
import type { LateTask, TaskAnswerCapture } from './task-types.js';

/** How Muster names itself to servers. */
export const CLIENT_INFO = { name: 'muster', version: '0.1.0' };

/** A remembered protocol verdict: reconnects skip the era probe (and its throwaway process). */
export type ProtocolVerdict =
  | { readonly kind: 'legacy' }
  | {
      readonly kind: 'modern';
      readonly discover: unknown;
      /**
       * True when the server (stdio) refused the legacy `initialize` Muster tries first (a
       * JSON-RPC error answer): it stays modern, and is not tried in the legacy era again.
       */
      readonly legacyRefused?: true;
      /**
       * True when that legacy `initialize` failed without a refusal (no answer within the probe
       * timeout, the process ended, an answer the client did not take): the server was
       * started again in the modern era and stays modern while this verdict lives (a day in
       * the verdict cache, not a modern verdict's seven), then is tried again.
       */
      readonly legacyFailed?: true;
    };

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
  /**
   * How the legacy `initialize` Muster tried first on this contact came out, when it was
   * refused or failed (stdio, `auto`, no verdict): carried into the modern verdict of the
   * connection (`legacyRefused`, `legacyFailed` of {@link ProtocolVerdict}).
   */
  readonly legacyTrial?: { readonly legacyRefused?: true; readonly legacyFailed?: true };
  readonly transport: TransportContext;
  /** The bound of the whole connect (probe, spawn or dial, handshake), in milliseconds. */
  readonly connectTimeoutMs: number;
  /** The protocol probe of `auto` and pinned modes (`mcp.protocol.probeTimeoutMs`, `probeMaxRetries`). */
  readonly probe?: ProbeBounds;
  /** Ends the connect at once, the protocol probe included. */
  readonly signal?: AbortSignal;
  /** Told of each stdio server process started for this connection (not the probe's). */
  readonly onProcess?: (process: ServerProcess) => void;
  /** The client capabilities to declare (default: none). */
  readonly capabilities?: ClientCapabilities;
  /**
   * Offer the Tasks extension (SEP-2663, SPEC 15.3): declared in the capabilities only when
   * the link captures task answers too (stdio and Streamable HTTP).
   */
  readonly tasks?: boolean;
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

/** The bounds of the protocol probe. */
export interface ProbeBounds {
  /** How long the probe waits for an answer before it counts the server as legacy (stdio). */
  readonly timeoutMs?: number;
  /** How many times a probe that got no answer is sent again. */
  readonly maxRetries?: number;
}

/** A stdio server process, for diagnostics: what it wrote to stderr, and how it ended. */
export interface ServerProcess {
  /** Its latest stderr text (unredacted: for the host only, through the server's redactor). */
  stderrTail(): string;
  exit(): ProcessExit | undefined;
  /** Its pid, once started. */
  pid(): number | null;
}

/** The client end of a connection, and how to release what it holds besides the client. */
export interface ConnectionLink {
  readonly transport: Transport;
  /** Releases the rest (an in-process server end); the client closes the transport. */
  readonly release: () => Promise<void>;
  readonly stderr?: () => string;
  /** How the server's process ended, once it has (stdio only). */
  readonly exit?: () => ProcessExit | undefined;
  /** Stops the transport at once, without a graceful wait (an abort during the connect). */
  readonly terminate?: () => Promise<void>;
  /** A link that brings its own client (an in-process server's fast path): used as is. */
  readonly client?: Client;
  /** The transport's capture of task answers, when it has one. */
  readonly tasks?: TaskAnswerCapture;
}

/** Per-call options of `McpConnection.callTool`. */
export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
  readonly onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /**
   * A round of a call Muster answers itself (2026-07-28): an `input_required` result comes
   * back as it is ({@link InputRequiredRound}) instead of being answered inside the client,
   * and a retry carries the previous round's answers and state.
   */
  readonly round?: CallRound;
  /**
   * A task answered for the call after it was given up (aborted, timed out: see
   * `TaskCapture`), on a connection that takes tasks: the caller cancels it.
   */
  readonly onLateTask?: (task: LateTask) => void;
  /**
   * Sent as `_meta["io.muster/idempotency-key"]` of the `tools/call` (SPEC 15.5): the call's
   * `<sessionId>:<callId>`, the same on every send of it, so a server can deduplicate.
   */
  readonly idempotencyKey?: string;
}

/** The answers and state one round of a call sends back (`input_required`, 2026-07-28). */
export interface CallRound {
  /** One bare answer per input request of the previous round, by its key. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The server's opaque state of the previous round, echoed as it came. */
  readonly requestState?: string;
}

/** A server's `input_required` answer to a round of a call: what it asks, and its state. */
export interface InputRequiredRound {
  readonly resultType: 'input_required';
  /** The embedded requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) by key. */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  readonly requestState?: string;
}
