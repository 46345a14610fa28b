import type { McpAuthenticateResult, OAuthSession } from '../../auth/index.js';
import { McpError, MusterError } from '../../errors/index.js';
import type { ExecutorRunContext } from '../../tools/index.js';
import type { McpManager } from './mcp-manager.js';
import type { McpConnectionSummary } from '../contracts/operation-types.js';
import type { ServerEntry } from '../connection/server-entry.js';
import { unknownServerError } from '../connection/server-registry.js';

type ContextFor = (operation: string) => ExecutorRunContext;

function oauthEntry(manager: McpManager, name: string): ServerEntry & { oauth: OAuthSession } {
  const e = manager.registry.get(name);
  if (!e) throw unknownServerError(name);
  if (!e.oauth) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Server '${name}' has no mcp.oauth entry: add one to sign in to it.`,
      { details: { server: name } },
    );
  }
  return e as ServerEntry & { oauth: OAuthSession };
}

function summary(e: ServerEntry): McpConnectionSummary {
  return { name: e.name, status: e.status, ...(e.error ? { error: { ...e.error } } : {}) };
}

/**
 * `authenticate(name)`: signs a server in. Connected already, or stored tokens that work (a
 * refresh included): `{ requiresUserAction: false }`. Push mode: the host's `authorize` runs
 * and this resolves once connected. Pull mode: `{ authUrl, requiresUserAction: true }`, the
 * login waiting for {@link submitOAuthCallback} (the same URL while it waits).
 *
 * @throws McpError `MCP_AUTH_REQUIRED` (or the connect's own code) when signing in failed.
 */
export async function authenticate(
  manager: McpManager,
  contextFor: ContextFor,
  name: string,
): Promise<McpAuthenticateResult> {
  const e = oauthEntry(manager, name);
  if (e.busy) await e.busy.catch(() => undefined);
  const waiting = e.oauth.pendingUrl;
  if (waiting !== undefined) return { authUrl: waiting, requiresUserAction: true };
  if (e.status === 'connected' && e.connection) {
    // connected, but a call wanted more scope than granted: a wider login (pull mode)
    if (!e.oauth.wantsStepUp) return { requiresUserAction: false };
    return e.oauth.authenticate(manager.lifetime, true);
  }
  await manager.connectOne(name, contextFor('authenticate'));
  if (e.status === 'connected') return { requiresUserAction: false };
  const url = e.oauth.pendingUrl;
  if (url !== undefined) return { authUrl: url, requiresUserAction: true };
  throw failure(e);
}

/**
 * `submitOAuthCallback(name, callbackUrl)`: finishes a pull-mode login with the URL the
 * browser was sent to, then connects the server.
 *
 * @throws McpError `MCP_AUTH_REQUIRED` when the callback is refused (its `details.reason`
 *   says why) or no login waits; the server's connect error when connecting fails.
 */
export async function submitOAuthCallback(
  manager: McpManager,
  contextFor: ContextFor,
  name: string,
  callbackUrl: string | URL,
): Promise<McpConnectionSummary> {
  const e = oauthEntry(manager, name);
  await e.oauth.submitCallback(callbackUrl);
  if (e.busy) await e.busy.catch(() => undefined);
  if (e.status !== 'connected') await manager.connectOne(name, contextFor('submitOAuthCallback'));
  if (e.status !== 'connected') throw failure(e);
  return summary(e);
}

/**
 * `logout(name)`: forgets the server's local tokens (nothing is revoked at the server) and
 * closes its connection; the server shows `needs-auth` until it is signed in again.
 */
export async function logout(
  manager: McpManager,
  contextFor: ContextFor,
  name: string,
): Promise<void> {
  const e = oauthEntry(manager, name);
  if (e.busy) await e.busy.catch(() => undefined);
  await e.oauth.logout();
  const connection = e.connection;
  manager.index.drop(e);
  delete e.connection;
  e.retry = true;
  await connection?.close();
  manager.registry.setStatus(e, 'needs-auth', contextFor('logout').emit, {
    code: 'MCP_AUTH_REQUIRED',
    message: `Server '${name}' was signed out: sign in again with authenticate('${name}').`,
  });
}

function failure(e: ServerEntry): McpError {
  const code = e.error?.code;
  return new McpError(
    code === 'MCP_AUTH_REQUIRED' ? code : 'MCP_CONNECTION_FAILED',
    e.error?.message ?? `Server '${e.name}' did not connect.`,
    {
      server: e.name,
      details: {
        server: e.name,
        status: e.status,
        ...(e.authReason === undefined ? {} : { reason: e.authReason }),
      },
    },
  );
}
