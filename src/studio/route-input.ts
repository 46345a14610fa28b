import type { Context } from 'hono';
import type { McpServerStatus } from '../mcp/index.js';
import { errorResponse, StudioHttpError } from './error-response.js';
import type { StudioContext } from './studio-context.js';

/** A route handler that may throw: the error becomes the JSON failure body. */
export function guarded(
  fn: (c: Context) => Promise<Response> | Response,
): (c: Context) => Promise<Response> {
  return async (c) => {
    try {
      return await fn(c);
    } catch (err) {
      return errorResponse(c, err);
    }
  };
}

/**
 * The request's JSON body as an object.
 *
 * @throws StudioHttpError 400 `INVALID_CONFIGURATION` when it is not a JSON object.
 */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new StudioHttpError(
      400,
      'INVALID_CONFIGURATION',
      'The request body is not JSON: send a JSON object with Content-Type: application/json.',
    );
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new StudioHttpError(
      400,
      'INVALID_CONFIGURATION',
      'The request body must be a JSON object.',
    );
  return body as Record<string, unknown>;
}

/** A string field of a body or query, or a 400 naming it. */
export function requiredString(value: unknown, field: string): string {
  if (typeof value === 'string' && value !== '') return value;
  throw new StudioHttpError(
    400,
    'INVALID_CONFIGURATION',
    `'${field}' is required and must be a non-empty string.`,
  );
}

/**
 * The status of the server named in the path.
 *
 * @throws StudioHttpError 404 `INVALID_CONFIGURATION` when the agent has no such server.
 */
export function serverOf(ctx: StudioContext, name: string): McpServerStatus {
  const status = ctx.agent.mcp.list().find((s) => s.name === name);
  if (status) return status;
  throw new StudioHttpError(
    404,
    'INVALID_CONFIGURATION',
    `No MCP server is registered as '${name}': register it first, or check the name.`,
  );
}

/** Aborts when the HTTP request is aborted (the page went away) or the studio shuts down. */
export function requestSignal(c: Context, ctx: StudioContext): AbortSignal {
  return AbortSignal.any([c.req.raw.signal, ctx.signal]);
}

/** Tells every page the servers' current statuses. */
export function publishServers(ctx: StudioContext): void {
  ctx.events.publish({ kind: 'servers', servers: ctx.agent.mcp.list() });
}

/** A path parameter of the route (always present where the route declares it). */
export function param(c: Context, name: string): string {
  return requiredString(c.req.param(name), name);
}
