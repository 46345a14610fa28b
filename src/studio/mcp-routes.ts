import type { StudioRoutes } from './studio-context.js';

/** The MCP routes: servers, tools, resources, prompts, completion, sign-in (placeholder). */
export const mcpRoutes: StudioRoutes = () => undefined;
