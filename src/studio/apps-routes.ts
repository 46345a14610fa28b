import type { StudioRoutes } from './studio-context.js';

/** The MCP Apps routes: one-time view URLs and the views themselves (placeholder). */
export const appsRoutes: StudioRoutes = () => undefined;
