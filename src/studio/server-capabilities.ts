import type { StudioContext } from './studio-context.js';

/**
 * Whether `server` offers `feature` (`resources`, `prompts`, `completions`), connecting it
 * first when needed: a feature the server does not declare is listed as empty instead of
 * failing the page.
 */
export async function offers(
  ctx: StudioContext,
  server: string,
  feature: 'resources' | 'prompts' | 'completions',
  signal: AbortSignal,
): Promise<boolean> {
  if (ctx.agent.mcp.getConnection(server).status !== 'connected')
    await ctx.agent.mcp.ping(server, { signal });
  const capabilities = ctx.agent.mcp.getConnection(server).capabilities as
    | Record<string, unknown>
    | undefined;
  return capabilities?.[feature] !== undefined;
}
