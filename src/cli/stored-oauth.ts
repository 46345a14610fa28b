import { join } from 'node:path';
import {
  CREDENTIALS_FILE_NAME,
  fileTokenStore,
  oauthNamespace,
  osUser,
  signedInOrigins,
} from '../auth/index.js';
import type { McpOAuthServerOptions, TokenStore } from '../auth/index.js';
import { remoteDeclarations } from './auth-target.js';

/** A loopback redirect URI for entries that never log in (pull mode, no listener). */
const NO_LISTENER = 'http://127.0.0.1/callback';

/**
 * `mcp.oauth` entries for every remote server of the config files that `muster mcp auth`
 * signed in to with the file store (`<home>/credentials.json`): pull mode (no browser ever
 * opens), the stored tokens used and refreshed at the origins the sign-in used. A server
 * whose tokens stop working shows `needs-auth`: run `muster mcp auth <name>` again. Give the
 * result as `mcp.oauth` to `createAgent` or `McpClientManager` in the other commands.
 */
export async function storedOAuthOptions(
  workdir: string,
  home: string,
  store: TokenStore = fileTokenStore({ path: join(home, CREDENTIALS_FILE_NAME) }),
): Promise<Record<string, McpOAuthServerOptions>> {
  const user = osUser();
  const entries: Record<string, McpOAuthServerOptions> = {};
  for (const { name, url } of await remoteDeclarations(workdir, home)) {
    const serverUrl = new URL(url).href;
    const state = await store.get(oauthNamespace(name, serverUrl, user));
    if (state?.tokens === undefined) continue;
    const redirect = (state.clientInformation as { redirect_uris?: unknown[] } | undefined)
      ?.redirect_uris?.[0];
    entries[name] = {
      serverUrl: url,
      allowedOrigins: signedInOrigins(state),
      redirectUri: typeof redirect === 'string' ? redirect : NO_LISTENER,
      store,
    };
  }
  return entries;
}
