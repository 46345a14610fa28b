/** Where a peer connects: a stdio command, a Streamable HTTP URL, or an MCP transport object. */
export type PeerTarget =
  | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'http'; readonly url: string }
  | { readonly kind: 'transport'; readonly transport: unknown };

/** One connected peer client, calling one tool with fixed arguments. */
export interface PeerEndpoint {
  /** One tool call; throws when the peer reports an error. */
  call(): Promise<void>;
  close(): Promise<void>;
}

/** A peer connected to a server and holding its tool list, until closed. */
export interface PeerReady {
  /** How many tools the server listed. */
  readonly tools: number;
  close(): Promise<void>;
}

/** A peer MCP client library. */
export interface PeerClient {
  readonly label: string;
  /** A short name for tables. */
  readonly short: string;
  /** The target kinds this peer can connect to. */
  readonly targets: readonly PeerTarget['kind'][];
  /**
   * Connects to `target` and lists its tools (AI SDK: `client.tools()`; OpenAI Agents:
   * `server.connect()` then `server.listTools()`), the way a host gets a server ready.
   */
  ready(target: PeerTarget): Promise<PeerReady>;
  open(
    target: PeerTarget,
    tool: string,
    args: Readonly<Record<string, unknown>>,
  ): Promise<PeerEndpoint>;
}

/** The peers, in the order the benchmark prints them. */
export declare const PEERS: readonly PeerClient[];
