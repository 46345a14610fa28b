import type { AuthProvider, FetchLike, Transport } from '@modelcontextprotocol/client';
import type { SecretRegistry } from '../../util/index.js';
import type { McpSandbox } from './config-types.js';
import type { ProcessExit } from '../failures/exit-status.js';
import type { TaskAnswerCapture } from './task-types.js';

/** What building a transport needs besides the server's own declaration. */
export interface TransportContext {
  /** The server's registry name (for error messages). */
  readonly server: string;
  /** Response bytes accepted per HTTP response (or per SSE event) before parsing. */
  readonly maxResponseBytes: number;
  /** Wraps every stdio command, probe processes included. */
  readonly sandbox?: McpSandbox;
  /** Bytes of stderr kept per stdio server for diagnostics. */
  readonly stderrBytes: number;
  /** The server's secret registry: tokens a provider hands out join it. */
  readonly secrets?: SecretRegistry;
  /** OAuth of an `http` server: its token source and the guard of its requests. */
  readonly oauth?: TransportOAuth;
}

/** What an OAuth-protected transport takes from the server's OAuth session. */
export interface TransportOAuth {
  /** Wraps the transport's fetch: trusted origins only, 401 answers remembered. */
  guard(fetch: FetchLike): FetchLike;
  /** The token source, with one shared refresh on 401. */
  authProvider(): AuthProvider;
}

/** A transport ready for `Client.connect`, with what Muster keeps about it. */
export interface TransportHandle {
  readonly transport: Transport;
  /** The last bytes the child wrote to stderr (stdio only); never logged. */
  stderrTail?(): string;
  /** The child's pid, once started (stdio only). */
  pid?(): number | null;
  /** How the child process ended, once it has (stdio only). */
  exit?(): ProcessExit | undefined;
  /**
   * Stops the transport at once (an abort): for stdio, the child is stopped without the
   * graceful wait of `close()`. Settles when it is gone.
   */
  terminate?(): Promise<void>;
  /**
   * Captures task answers to `tools/call` below the client's decoding (stdio and Streamable
   * HTTP): only a connection over a transport that has it may offer the Tasks extension.
   */
  readonly tasks?: TaskAnswerCapture;
}
