import type { Context, Hono } from 'hono';
import { MusterError } from '../errors/index.js';
import type { SignInResponse } from './api-types.js';
import { guarded, param, publishServers, serverOf } from './route-input.js';
import type { StudioContext } from './studio-context.js';

/** Where the studio's OAuth callback is served (the `redirectUri` of its `mcp.oauth` entries). */
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A plain page for a callback that did not sign in: the code and a way back, nothing else. */
function failurePage(c: Context, code: string, status: 400 | 502): Response {
  const safe = escapeHtml(code);
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head>` +
      `<body><h1>Sign-in failed</h1><p>Error code: <code data-testid="form-error">${safe}</code></p>` +
      `<p>Start the sign-in again from the studio.</p><p><a href="/#/signin">Back to sign-in</a></p></body></html>`,
    status,
  );
}

/** How long a sign-in the studio handed out waits for its callback. */
export const SIGNIN_TTL_MS = 10 * 60_000;

/** Options of {@link signinRoutes} (tests set the clock). */
export interface SigninRouteOptions {
  /** How long a pending sign-in is accepted (default 10 minutes). */
  readonly ttlMs?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * Sign-in: `POST /api/servers/:name/signin` starts (or resumes) a pull-mode OAuth login and
 * answers the URL for the page to show as a link; `GET /oauth/callback` (no cookie: the
 * OAuth `state` authenticates it) finishes the login the `state` belongs to, then redirects
 * to `/#/signin?signin=ok&server=<name>`. The code and state are never echoed. A sign-in
 * not finished within 10 minutes is forgotten (its callback is refused; start again).
 */
export function signinRoutes(
  app: Hono,
  ctx: StudioContext,
  options: SigninRouteOptions = {},
): void {
  const ttlMs = options.ttlMs ?? SIGNIN_TTL_MS;
  const now = options.now ?? Date.now;
  // state -> server and deadline, for the logins this studio handed out (the callback
  // names no server)
  const pending = new Map<string, { readonly server: string; readonly expires: number }>();
  const forgetExpired = (): void => {
    const at = now();
    for (const [s, p] of pending) if (p.expires <= at) pending.delete(s);
  };

  app.post(
    '/api/servers/:name/signin',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      try {
        const result = await ctx.agent.mcp.authenticate(server);
        if (result.authUrl !== undefined) {
          const state = new URL(result.authUrl).searchParams.get('state');
          forgetExpired();
          if (state) {
            for (const [s, p] of pending) if (p.server === server && s !== state) pending.delete(s);
            pending.set(state, { server, expires: now() + ttlMs });
          }
        }
        return c.json({
          ...(result.authUrl !== undefined ? { authUrl: result.authUrl } : {}),
          requiresUserAction: result.requiresUserAction,
        } satisfies SignInResponse);
      } finally {
        publishServers(ctx);
      }
    }),
  );

  app.get(OAUTH_CALLBACK_PATH, async (c) => {
    // the request URL holds the code: neither answer may be cached
    c.header('Cache-Control', 'no-store');
    const url = new URL(c.req.url);
    forgetExpired();
    const state = url.searchParams.get('state') ?? '';
    const server = pending.get(state)?.server;
    if (server === undefined) return failurePage(c, 'MCP_AUTH_REQUIRED', 400);
    pending.delete(state);
    try {
      // the registered redirect URI, whichever loopback name the browser used
      await ctx.agent.mcp.submitOAuthCallback(
        server,
        `${ctx.origin}${OAUTH_CALLBACK_PATH}${url.search}`,
      );
    } catch (err) {
      const code = MusterError.isInstance(err) ? err.code : 'INTERNAL_ERROR';
      return failurePage(c, code, code === 'MCP_AUTH_REQUIRED' ? 400 : 502);
    } finally {
      publishServers(ctx);
    }
    return c.redirect(`/#/signin?signin=ok&server=${encodeURIComponent(server)}`, 302);
  });
}
