import type { Transport } from '@modelcontextprotocol/client';
import type { McpSandbox } from '../config-types.js';

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
}

/** A transport ready for `Client.connect`, with what Muster keeps about it. */
export interface TransportHandle {
  readonly transport: Transport;
  /** The last bytes the child wrote to stderr (stdio only); never logged. */
  stderrTail?(): string;
}
