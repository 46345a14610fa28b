import type { CompleteRequestParams } from '@modelcontextprotocol/client';
import type { Hono } from 'hono';
import type { CompleteResponse, PromptsResponse } from './api-types.js';
import { StudioHttpError } from './error-response.js';
import { guarded, jsonBody, param, requestSignal, serverOf } from './route-input.js';
import { offers } from './server-capabilities.js';
import type { StudioContext } from './studio-context.js';

function stringRecord(value: unknown, field: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  )
    return value as Record<string, string>;
  throw new StudioHttpError(
    400,
    'INVALID_CONFIGURATION',
    `'${field}' must be an object of string values.`,
  );
}

/** The `completion/complete` parameters of a `CompleteBody`, checked. */
function completeParams(body: Record<string, unknown>): CompleteRequestParams {
  const ref = body['ref'] as Record<string, unknown> | undefined;
  const argument = body['argument'] as Record<string, unknown> | undefined;
  const okRef =
    (ref?.['type'] === 'ref/resource' && typeof ref['uri'] === 'string') ||
    (ref?.['type'] === 'ref/prompt' && typeof ref['name'] === 'string');
  if (!okRef || typeof argument?.['name'] !== 'string' || typeof argument['value'] !== 'string')
    throw new StudioHttpError(
      400,
      'INVALID_CONFIGURATION',
      "Send { ref: { type: 'ref/resource', uri } | { type: 'ref/prompt', name }, argument: { name, value } }.",
    );
  const context = body['context'] as Record<string, unknown> | undefined;
  const args = stringRecord(context?.['arguments'], 'context.arguments');
  return {
    ref: ref as CompleteRequestParams['ref'],
    argument: { name: argument['name'], value: argument['value'] },
    ...(args ? { context: { arguments: args } } : {}),
  };
}

/**
 * Prompts and completion: `GET /api/servers/:name/prompts`,
 * `POST /api/servers/:name/prompts/:prompt { arguments }` (`prompts/get`), and
 * `POST /api/servers/:name/complete` (`CompleteBody` → `CompleteResponse`).
 */
export function promptRoutes(app: Hono, ctx: StudioContext): void {
  app.get(
    '/api/servers/:name/prompts',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const signal = requestSignal(c, ctx);
      if (!(await offers(ctx, server, 'prompts', signal)))
        return c.json({ prompts: [] } satisfies PromptsResponse);
      const listed = await ctx.agent.mcp.listPrompts(server, { signal });
      return c.json({ prompts: listed.prompts } as PromptsResponse);
    }),
  );

  app.post(
    '/api/servers/:name/prompts/:prompt',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const args = stringRecord((await jsonBody(c))['arguments'], 'arguments');
      const result = await ctx.agent.mcp.getPrompt(server, param(c, 'prompt'), args, {
        signal: requestSignal(c, ctx),
      });
      return c.json(result);
    }),
  );

  app.post(
    '/api/servers/:name/complete',
    guarded(async (c) => {
      const server = param(c, 'name');
      serverOf(ctx, server);
      const params = completeParams(await jsonBody(c));
      const signal = requestSignal(c, ctx);
      if (!(await offers(ctx, server, 'completions', signal)))
        return c.json({ values: [] } satisfies CompleteResponse);
      const { completion } = await ctx.agent.mcp.complete(server, params, { signal });
      return c.json({
        values: completion.values,
        ...(completion.total !== undefined ? { total: completion.total } : {}),
        ...(completion.hasMore !== undefined ? { hasMore: completion.hasMore } : {}),
      } satisfies CompleteResponse);
    }),
  );
}
