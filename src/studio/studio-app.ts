import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { appsRoutes } from './apps-routes.js';
import { archiveRoutes } from './archive-routes.js';
import { fleetRoutes } from './fleet-routes.js';
import type { ApprovalQueue } from './approval-queue.js';
import type { ElicitationQueue } from './elicitation-queue.js';
import { mcpRoutes } from './mcp-routes.js';
import { runRoutes } from './run-routes.js';
import { sessionRoutes } from './session-routes.js';
import { waitRoutes } from './wait-routes.js';
import type { StudioContext } from './studio-context.js';
import { errorBody, errorResponse } from './error-response.js';
import type { StudioEventHub } from './studio-events.js';
import type { StudioRuns } from './studio-runs.js';
import type { StudioSecurity } from './studio-security.js';
import { staticRoutes } from './studio-static.js';

/** The largest request body the studio reads (a tool's arguments, a form answer). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** What the app is composed of. */
export interface StudioAppParts {
  readonly ctx: StudioContext;
  readonly security: StudioSecurity;
  readonly hub: StudioEventHub;
  readonly approvals: ApprovalQueue;
  readonly elicitations: ElicitationQueue;
  readonly runs: StudioRuns;
  /** The built page's folder; absent when it is not built. */
  readonly uiDir: string | undefined;
}

/**
 * The studio's HTTP app: the security checks and headers first, then the route modules
 * (events, approvals, elicitations, runs, sessions, parked waits, the fleet, MCP, MCP
 * Apps), then the page's static
 * files. A thrown `MusterError` or studio refusal becomes the JSON error body.
 */
export function createStudioApp(parts: StudioAppParts): Hono {
  const app = new Hono();
  app.use('*', parts.security.headers());
  app.use('*', parts.security.guard());
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json(
          errorBody('STUDIO_BAD_REQUEST', `The request body is over ${MAX_BODY_BYTES} bytes.`),
          413,
        ),
    }),
  );
  parts.hub.routes(parts.approvals, parts.elicitations)(app);
  parts.approvals.routes(app);
  parts.elicitations.routes(app);
  runRoutes(parts.runs)(app, parts.ctx);
  sessionRoutes(app, parts.ctx);
  waitRoutes(app, parts.ctx);
  fleetRoutes(app, parts.ctx);
  archiveRoutes(app, parts.ctx);
  mcpRoutes(app, parts.ctx);
  appsRoutes(app, parts.ctx);
  staticRoutes(app, parts.uiDir);
  app.all('*', (c) =>
    c.json(errorBody('STUDIO_NOT_FOUND', `No route ${c.req.method} ${c.req.path}.`), 404),
  );
  app.onError((err, c) => errorResponse(c, err));
  return app;
}
