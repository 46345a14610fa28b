import type { Hono } from 'hono';
import { checkMcpFileServer } from '../mcp/index.js';
import type { ServerDiagnosticsResponse, ServersResponse } from './api-types.js';
import { StudioHttpError } from './error-response.js';
import {
  guarded,
  jsonBody,
  param,
  publishServers,
  requestSignal,
  requiredString,
  serverOf,
} from './route-input.js';
import type { StudioContext } from './studio-context.js';

const WHERE = 'the studio (POST /api/servers)';

/**
 * `/api/servers`: the registry. `GET` lists `agent.mcp.list()`; `POST { name, config }`
 * checks the declaration as `muster mcp add` does, then registers and connects it (nothing is
 * written to a config file); `DELETE /:name` unregisters; `POST /:name/reconnect` tries again;
 * `GET /:name/diagnostics` gives the redacted stderr tail and exit of its stdio process.
 */
export function serverRoutes(app: Hono, ctx: StudioContext): void {
  app.get('/api/servers', (c) => c.json(ctx.agent.mcp.list() satisfies ServersResponse));

  app.post(
    '/api/servers',
    guarded(async (c) => {
      const body = await jsonBody(c);
      const name = requiredString(body['name'], 'name');
      const config = body['config'];
      if (typeof config !== 'object' || config === null || Array.isArray(config))
        throw new StudioHttpError(
          400,
          'INVALID_CONFIGURATION',
          '\'config\' must be a server declaration object, e.g. { "command": "node", "args": ["server.js"] }.',
        );
      const checked = checkMcpFileServer(name, config, 'user', WHERE);
      try {
        return c.json(await ctx.agent.mcp.register(name, checked), 201);
      } finally {
        publishServers(ctx);
      }
    }),
  );

  app.get(
    '/api/servers/:name/diagnostics',
    guarded((c) => {
      const name = param(c, 'name');
      serverOf(ctx, name);
      return c.json(ctx.agent.mcp.diagnostics(name) satisfies ServerDiagnosticsResponse);
    }),
  );

  app.delete(
    '/api/servers/:name',
    guarded(async (c) => {
      const name = param(c, 'name');
      serverOf(ctx, name);
      await ctx.agent.mcp.unregister(name);
      publishServers(ctx);
      return c.json(ctx.agent.mcp.list() satisfies ServersResponse);
    }),
  );

  app.post(
    '/api/servers/:name/reconnect',
    guarded(async (c) => {
      const name = param(c, 'name');
      serverOf(ctx, name);
      try {
        // An operation on a server that is not connected connects it first, whatever its
        // last attempt did (failed, pending, needs-auth); on a connected one it checks that
        // the server still answers (a dead one is taken down and reported).
        await ctx.agent.mcp.ping(name, { signal: requestSignal(c, ctx) });
      } finally {
        publishServers(ctx);
      }
      return c.json(serverOf(ctx, name));
    }),
  );
}
