import { promptRoutes } from './prompt-routes.js';
import { resourceRoutes } from './resource-routes.js';
import { serverRoutes } from './server-routes.js';
import { signinRoutes } from './signin-routes.js';
import type { StudioRoutes } from './studio-context.js';
import { toolRoutes } from './tool-routes.js';

/**
 * The MCP routes: servers (list, register, unregister, reconnect), tools (list, call through
 * the policy), resources (list, read, subscribe), prompts, completion, and OAuth sign-in.
 */
export const mcpRoutes: StudioRoutes = (app, ctx) => {
  serverRoutes(app, ctx);
  toolRoutes(app, ctx);
  resourceRoutes(app, ctx);
  promptRoutes(app, ctx);
  signinRoutes(app, ctx);
};
