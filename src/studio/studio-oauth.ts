import { join } from 'node:path';
import {
  CREDENTIALS_FILE_NAME,
  fileTokenStore,
  oauthNamespace,
  osUser,
  signedInOrigins,
} from '../auth/index.js';
import type { McpOAuthServerOptions, TokenStore } from '../auth/index.js';
import { MCP_CONFIG_SCOPES, mcpConfigPath, readMcpConfigFile } from '../mcp/index.js';
import { OAUTH_CALLBACK_PATH } from './signin-routes.js';

/** Where the studio's OAuth entries come from. */
export interface StudioOAuthInput {
  readonly workdir: string;
  readonly home: string;
  /** `http://127.0.0.1:<port>`: the callback is `<origin>/oauth/callback`. */
  readonly origin: string;
  /** `--allowed-origin` values. */
  readonly allowedOrigins: readonly string[];
  /** Where tokens are kept; default `<home>/credentials.json`, the store of `muster mcp auth`. */
  readonly store?: TokenStore;
}

/** Every `http` server of the project and user files (the project's when both name one). */
function remoteServers(workdir: string, home: string): { name: string; url: string }[] {
  const found = new Map<string, string>();
  for (const scope of MCP_CONFIG_SCOPES) {
    for (const { name, config } of readMcpConfigFile(mcpConfigPath(scope, workdir, home), scope)) {
      if (found.has(name) || config.type !== 'http') continue;
      found.set(name, config.url);
    }
  }
  return [...found].map(([name, url]) => ({ name, url }));
}

/**
 * The `mcp.oauth` entries of the studio's agent: one per remote (`http`) server of the
 * project and user config files, in pull mode (the page shows the authorization URL as a
 * link), redirected to `<origin>/oauth/callback`, with tokens in the same file store as
 * `muster mcp auth` (a sign-in in one is a sign-in in the other). The origins OAuth may
 * contact are `allowedOrigins` plus those an earlier stored sign-in used.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when a config file would not load.
 */
export async function studioOAuthOptions(
  input: StudioOAuthInput,
): Promise<Record<string, McpOAuthServerOptions>> {
  const store = input.store ?? fileTokenStore({ path: join(input.home, CREDENTIALS_FILE_NAME) });
  const user = osUser();
  const redirectUri = `${input.origin}${OAUTH_CALLBACK_PATH}`;
  const entries: Record<string, McpOAuthServerOptions> = {};
  for (const { name, url } of remoteServers(input.workdir, input.home)) {
    const stored = await store.get(oauthNamespace(name, new URL(url).href, user));
    entries[name] = {
      serverUrl: url,
      allowedOrigins: [...new Set([...input.allowedOrigins, ...signedInOrigins(stored)])],
      redirectUri,
      store,
    };
  }
  return entries;
}
