import { checkPrincipal } from '../../auth/index.js';
import type { McpAuthenticateResult, OAuthSession, PrincipalSessions } from '../../auth/index.js';
import { McpError, MusterError } from '../../errors/index.js';
import type { ExecutorRunContext } from '../../tools/index.js';
import type { McpManager } from './mcp-manager.js';
import type { McpConnectionSummary, McpSignInOptions } from '../contracts/operation-types.js';
import type { ServerEntry } from '../connection/server-entry.js';
import { unknownServerError } from '../connection/server-registry.js';

type ContextFor = (operation: string) => ExecutorRunContext;

type OAuthEntry = ServerEntry & { oauth: OAuthSession; principals: PrincipalSessions };

/** The principal named, checked before anything else (nothing runs for a bad id). */
function principalOf(options: McpSignInOptions | undefined): string | undefined {
  const principal = options?.principal;
  return principal === undefined ? undefined : checkPrincipal(principal);
}

function oauthEntry(manager: McpManager, name: string): OAuthEntry {
  const e = manager.registry.get(name);
  if (!e) throw unknownServerError(name);
  if (!e.oauth) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Server '${name}' has no mcp.oauth entry: add one to sign in to it.`,
      { details: { server: name } },
    );
  }
  return e as OAuthEntry;
}

/** Refuses a principal's sign-in to a server that may not connect (it sends nothing to it). */
function assertEnabled(e: ServerEntry): void {
  if (!e.blocked) return;
  throw new MusterError('INVALID_CONFIGURATION', `Server '${e.name}' is disabled: ${e.blocked}.`, {
    details: { server: e.name },
  });
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
 * With `{ principal }`, the principal's own sign-in (SPEC 15.4): its stored tokens (a refresh
 * included) answer `{ requiresUserAction: false }` without connecting; else its login starts,
 * its `state` and PKCE verifier kept in the token store under that principal, apart from
 * every other one's, so that any process sharing the store can take its callback. A
 * principal's sign-in never calls the host's `authorize` (a server process opens no browser):
 * it always answers with the URL.
 *
 * @throws McpError `MCP_AUTH_REQUIRED` (or the connect's own code) when signing in failed.
 * @throws MusterError `INVALID_CONFIGURATION` for a bad principal id.
 */
export async function authenticate(
  manager: McpManager,
  contextFor: ContextFor,
  name: string,
  options?: McpSignInOptions,
): Promise<McpAuthenticateResult> {
  const principal = principalOf(options);
  const e = oauthEntry(manager, name);
  if (principal !== undefined) {
    assertEnabled(e);
    return e.principals.use(principal, async (session) => {
      const waiting = await session.waitingUrl();
      if (waiting !== undefined) return { authUrl: waiting, requiresUserAction: true };
      return session.authenticate(manager.lifetime, session.wantsStepUp);
    });
  }
  if (e.busy) await e.busy.catch(() => undefined);
  const waiting = await e.oauth.waitingUrl();
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
 * The login may have been started by another process sharing the token store: its `state`
 * and verifier are read from the store and removed there by the one callback that uses them.
 *
 * With `{ principal }`, finishes that principal's login: its tokens are stored under it, and
 * nothing connects (the summary says `pending`: the principal's connection opens on its first
 * use).
 *
 * @throws McpError `MCP_AUTH_REQUIRED` when the callback is refused (its `details.reason`
 *   says why) or no login waits; the server's connect error when connecting fails.
 * @throws MusterError `INVALID_CONFIGURATION` for a bad principal id.
 */
export async function submitOAuthCallback(
  manager: McpManager,
  contextFor: ContextFor,
  name: string,
  callbackUrl: string | URL,
  options?: McpSignInOptions,
): Promise<McpConnectionSummary> {
  const principal = principalOf(options);
  const e = oauthEntry(manager, name);
  if (principal !== undefined) {
    assertEnabled(e);
    await e.principals.use(principal, (session) => session.submitCallback(callbackUrl));
    return { name: e.name, status: 'pending' };
  }
  await e.oauth.submitCallback(callbackUrl);
  if (e.busy) await e.busy.catch(() => undefined);
  if (e.status !== 'connected') await manager.connectOne(name, contextFor('submitOAuthCallback'));
  if (e.status !== 'connected') throw failure(e);
  return summary(e);
}

/**
 * `logout(name)`: forgets the server's local tokens (nothing is revoked at the server) and
 * closes its connection; the server shows `needs-auth` until it is signed in again. The
 * tokens of principals stay.
 *
 * With `{ principal }`, forgets that principal's tokens only (and cancels its waiting login)
 * and closes that principal's connection; the local user's tokens, the other principals' and
 * their connections stay.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a bad principal id.
 */
export async function logout(
  manager: McpManager,
  contextFor: ContextFor,
  name: string,
  options?: McpSignInOptions,
): Promise<void> {
  const principal = principalOf(options);
  const e = oauthEntry(manager, name);
  if (principal !== undefined) {
    // its connection goes too: nothing may go on calling with the tokens it signed out of
    await Promise.all([
      e.principals.use(principal, (session) => session.logout()),
      manager.pool.closePrincipal(name, principal),
    ]);
    return;
  }
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
