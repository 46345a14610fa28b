import type { Context } from 'hono';
import { StudioHttpError } from './error-response.js';

/**
 * The JSON object a POST carries (the security layer has already checked its content type).
 * A body that does not parse, or is not an object, is a 400 `STUDIO_BAD_REQUEST`.
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new StudioHttpError(400, 'STUDIO_BAD_REQUEST', 'The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new StudioHttpError(400, 'STUDIO_BAD_REQUEST', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

/** A 400 `STUDIO_BAD_REQUEST` naming the field that is wrong. */
export function badField(field: string, expected: string): StudioHttpError {
  return new StudioHttpError(400, 'STUDIO_BAD_REQUEST', `'${field}' must be ${expected}.`, {
    issues: [{ path: field, message: `must be ${expected}` }],
  });
}
