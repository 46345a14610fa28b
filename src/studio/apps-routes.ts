import type { Context } from 'hono';
import { MusterError } from '../errors/index.js';
import type { AppViewResponse, StudioErrorBody } from './api-types.js';
import { appViewAllow, buildAppViewCsp } from './app-csp.js';
import { loadAppView } from './app-view-source.js';
import { AppViewStore } from './app-views.js';
import type { AppViewStoreOptions } from './app-views.js';
import type { StudioRoutes } from './studio-context.js';

type ErrorStatus = 400 | 403 | 404 | 409 | 500 | 502 | 504;

function failure(c: Context, status: ErrorStatus, code: string, message: string): Response {
  const body: StudioErrorBody = { error: { code, message } };
  return c.json(body, status);
}

/** The HTTP status of an error the agent threw while reading a view. */
function statusOf(err: MusterError): ErrorStatus {
  switch (err.code) {
    case 'INVALID_CONFIGURATION':
      return 400;
    case 'MCP_AUTH_REQUIRED':
      return 403;
    case 'REGISTRY_BUSY':
      return 409;
    case 'MCP_CONNECTION_FAILED':
    case 'MCP_DISCONNECTED':
    case 'MCP_OPERATION_FAILED':
      return 502;
    default:
      return 500;
  }
}

/**
 * The MCP Apps routes, with the store of views handed out (options: its expiry and size).
 *
 * - `POST /api/servers/:name/tools/:tool/app` (cookie, like every `/api` route): reads the
 *   tool's `ui://` view, checks its MIME type and its declared CSP, and answers an
 *   `AppViewResponse` whose `viewUrl` serves it once.
 * - `GET /apps/view/:nonce` (no cookie: the one-time nonce is the credential): the view's
 *   HTML under its own Content-Security-Policy; 404 once used, expired or unknown.
 */
export function createAppsRoutes(options: AppViewStoreOptions = {}): StudioRoutes {
  return (app, ctx) => {
    const views = new AppViewStore(options);

    app.post('/api/servers/:name/tools/:tool/app', async (c) => {
      const server = c.req.param('name');
      const tool = c.req.param('tool');
      let loaded;
      try {
        loaded = await loadAppView(ctx.agent.mcp, server, tool);
      } catch (err) {
        if (MusterError.isInstance(err)) return failure(c, statusOf(err), err.code, err.message);
        return failure(c, 500, 'INTERNAL_ERROR', `Reading the view of '${tool}' failed.`);
      }
      if ('status' in loaded) return failure(c, loaded.status, loaded.code, loaded.message);
      // the studio's own origin (any loopback host on its port) is refused in every list
      const csp = buildAppViewCsp(loaded.ui?.['csp'], Number(new URL(ctx.origin).port));
      if (!csp.ok)
        return failure(
          c,
          502,
          'STUDIO_APP_INVALID',
          `The view ${loaded.resourceUri} of '${server}' declares an invalid CSP: ${csp.problem}. The studio does not show it; fix the server's _meta.ui.csp.`,
        );
      const nonce = views.put({ html: loaded.html, csp: csp.header });
      const prefersBorder = loaded.ui?.['prefersBorder'];
      const body: AppViewResponse = {
        resourceUri: loaded.resourceUri,
        viewUrl: `/apps/view/${nonce}`,
        allow: appViewAllow(loaded.ui?.['permissions']),
        ...(typeof prefersBorder === 'boolean' ? { prefersBorder } : {}),
      };
      return c.json(body);
    });

    app.get('/apps/view/:nonce', (c) => {
      // only as an iframe (browsers say so); anything else leaves the nonce unused
      const dest = c.req.header('sec-fetch-dest');
      if (dest !== undefined && dest !== 'iframe' && dest !== 'frame')
        return failure(c, 403, 'STUDIO_FORBIDDEN', 'An MCP Apps view loads only in its iframe.');
      const view = views.take(c.req.param('nonce'));
      if (!view)
        return failure(
          c,
          404,
          'STUDIO_NOT_FOUND',
          'This view URL was used already or has expired; ask for a new one (POST .../app).',
        );
      c.header('Content-Security-Policy', view.csp);
      c.header('Cache-Control', 'no-store');
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Referrer-Policy', 'no-referrer');
      return c.html(view.html);
    });
  };
}

/** The MCP Apps routes with the default store (views valid 60 s, at most 32 waiting). */
export const appsRoutes: StudioRoutes = createAppsRoutes();
