import type { Hono } from 'hono';
import type {
  ReadResourceResponse,
  ResourcesResponse,
  SubscriptionResponse,
  SubscriptionsResponse,
} from './api-types.js';
import { ResourceSubscriptions } from './resource-subscriptions.js';
import {
  guarded,
  jsonBody,
  param,
  requestSignal,
  requiredString,
  serverOf,
} from './route-input.js';
import { offers } from './server-capabilities.js';
import type { StudioContext } from './studio-context.js';

/**
 * Resources: `GET /api/servers/:name/resources` (resources and templates),
 * `GET /api/servers/:name/resource?uri=` (`resources/read`), and
 * `POST /api/servers/:name/subscriptions { uri }` / `DELETE …?uri=`: updates arrive as
 * `resource.updated` events until unsubscribed, the server's stream ends
 * (`resource.subscription.ended`) or the studio stops; `GET /api/subscriptions` lists them.
 */
export function resourceRoutes(app: Hono, ctx: StudioContext): void {
  const subscriptions = new ResourceSubscriptions(ctx);

  app.get(
    '/api/servers/:name/resources',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const signal = requestSignal(c, ctx);
      if (!(await offers(ctx, server, 'resources', signal)))
        return c.json({ resources: [], templates: [] } satisfies ResourcesResponse);
      const [resources, templates] = await Promise.all([
        ctx.agent.mcp.listResources(server, { signal }),
        ctx.agent.mcp.listResourceTemplates(server, { signal }),
      ]);
      return c.json({
        resources: resources.resources,
        templates: templates.resourceTemplates,
      } as ResourcesResponse);
    }),
  );

  app.get(
    '/api/servers/:name/resource',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const uri = requiredString(c.req.query('uri'), 'uri');
      const read = await ctx.agent.mcp.readResource(server, uri, {
        signal: requestSignal(c, ctx),
      });
      return c.json({ contents: read.contents } as ReadResourceResponse);
    }),
  );

  app.get('/api/subscriptions', (c) =>
    c.json({ subscriptions: subscriptions.list() } satisfies SubscriptionsResponse),
  );

  app.post(
    '/api/servers/:name/subscriptions',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const uri = requiredString((await jsonBody(c))['uri'], 'uri');
      await subscriptions.subscribe(server, uri);
      return c.json({ uri, subscribed: true } satisfies SubscriptionResponse);
    }),
  );

  app.delete(
    '/api/servers/:name/subscriptions',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const uri = requiredString(c.req.query('uri'), 'uri');
      await subscriptions.unsubscribe(server, uri);
      return c.json({ uri, subscribed: false } satisfies SubscriptionResponse);
    }),
  );
}
