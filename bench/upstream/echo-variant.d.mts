/** A stdio server to start. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
}

/** One caller of `echo {text: 'hello'}`: the answer is returned as the caller gives it. */
export interface EchoCaller {
  call(): Promise<unknown>;
  close(): Promise<unknown>;
}

/** Where `@modelcontextprotocol/client` resolved for this variant. */
export declare const clientURL: string;
/** The raw official client (`callTool`, its default legacy era). */
export declare function openRaw(server: Launch): Promise<EchoCaller>;
/** Muster's direct call (`agent.mcp.callTool`, `mcp.protocol.mode: legacy`), from dist/. */
export declare function openMuster(server: Launch): Promise<EchoCaller>;
