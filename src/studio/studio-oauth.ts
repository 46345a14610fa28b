import type { McpOAuthServerOptions } from '../auth/index.js';

/** Where the studio's OAuth entries come from (placeholder). */
export interface StudioOAuthInput {
  readonly workdir: string;
  readonly home: string;
  /** `http://127.0.0.1:<port>`: the callback is `<origin>/oauth/callback`. */
  readonly origin: string;
  /** `--allowed-origin` values. */
  readonly allowedOrigins: readonly string[];
}

/** The `mcp.oauth` entries of the studio's agent (placeholder: none yet). */
export async function studioOAuthOptions(
  _input: StudioOAuthInput,
): Promise<Record<string, McpOAuthServerOptions>> {
  return {};
}
