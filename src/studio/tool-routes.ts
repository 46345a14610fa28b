import type { Tool } from '@modelcontextprotocol/client';
import type { Hono } from 'hono';
import { mcpModelNameOf } from '../tools/index.js';
import type { ToolView } from './api-types.js';
import { StudioHttpError } from './error-response.js';
import { guarded, jsonBody, param, requestSignal, serverOf } from './route-input.js';
import type { StudioContext } from './studio-context.js';
import { callThroughPolicy } from './tool-call.js';
import { toolView } from './tool-view.js';

/** What a page may name its call (`callId`): an approval it waits on carries it. */
const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The model-facing name of a server's tool (as the registry named it, else the default). */
function modelNameOf(ctx: StudioContext, server: string, tool: string): string {
  return mcpModelNameOf(serverOf(ctx, server).tools, server, tool);
}

async function findTool(
  ctx: StudioContext,
  server: string,
  name: string,
  signal: AbortSignal,
): Promise<Tool> {
  const tool = (await ctx.agent.mcp.listTools(server, { signal })).find((t) => t.name === name);
  if (tool) return tool;
  throw new StudioHttpError(
    404,
    'TOOL_NOT_FOUND',
    `MCP server '${server}' has no tool '${name}': pick one from its list.`,
  );
}

/**
 * `GET /api/servers/:name/tools` (`ToolView[]`, listed now) and
 * `POST /api/servers/:name/tools/:tool/call` (`CallToolBody` → `CallToolResponse`; the
 * body's optional `callId` names the call, and an approval it waits on carries it).
 */
export function toolRoutes(app: Hono, ctx: StudioContext): void {
  app.get(
    '/api/servers/:name/tools',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const tools = await ctx.agent.mcp.listTools(server, { signal: requestSignal(c, ctx) });
      return c.json(
        tools.map((t) => toolView(t, modelNameOf(ctx, server, t.name))) satisfies ToolView[],
      );
    }),
  );

  app.post(
    '/api/servers/:name/tools/:tool/call',
    guarded(async (c) => {
      const server = param(c, 'name');
      const name = param(c, 'tool');
      serverOf(ctx, server);
      const body = await jsonBody(c);
      const args = body['arguments'] ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args))
        throw new StudioHttpError(
          400,
          'TOOL_ARGUMENTS_INVALID',
          "'arguments' must be a JSON object of the tool's input.",
        );
      const callId = body['callId'];
      if (callId !== undefined && (typeof callId !== 'string' || !CALL_ID.test(callId)))
        throw new StudioHttpError(
          400,
          'INVALID_CONFIGURATION',
          "'callId' must be 1-64 characters of A-Z, a-z, 0-9, '_' and '-' (or left out).",
        );
      const signal = requestSignal(c, ctx);
      const tool = await findTool(ctx, server, name, signal);
      return c.json(
        await callThroughPolicy(ctx, {
          server,
          tool,
          modelName: modelNameOf(ctx, server, name),
          arguments: args as Record<string, unknown>,
          fromApp: body['fromApp'] === true,
          ...(callId === undefined ? {} : { callId }),
          signal,
        }),
      );
    }),
  );
}
