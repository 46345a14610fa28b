import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MusterError } from '../errors/index.js';
import type { StudioErrorBody } from './api-types.js';

/** What a route answers besides the code and message (issues, the policy's decision). */
type Extra = Omit<StudioErrorBody['error'], 'code' | 'message'>;

/** One problem with a request body or an answer, per field path (`a.b`, '' for the whole). */
export interface StudioIssue {
  readonly path: string;
  readonly message: string;
}

/** The JSON error body of `code` and `message` (with `issues` when given). */
export function errorBody(
  code: string,
  message: string,
  issues?: readonly StudioIssue[],
): StudioErrorBody {
  return { error: { code, message, ...(issues === undefined ? {} : { issues }) } };
}

/**
 * A failure the studio itself decides, with its HTTP status: thrown by route code and turned
 * into `{ error: { code, message } }` by {@link errorResponse}.
 */
export class StudioHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly extra: Extra = {},
  ) {
    super(message);
    this.name = 'StudioHttpError';
  }
}

const STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  INVALID_CONFIGURATION: 400,
  TOOL_RESULT_TOO_LARGE: 413,
  TOOL_ARGUMENTS_INVALID: 400,
  TOOL_DENIED: 403,
  TOOL_APPROVAL_REQUIRED: 403,
  PRINCIPAL_MISMATCH: 403,
  TOOL_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  WAIT_NOT_FOUND: 404,
  WAIT_STALE: 409,
  REGISTRY_BUSY: 409,
  SESSION_ALREADY_RUNNING: 409,
  ABORTED: 503,
  INTERNAL_ERROR: 500,
};

/**
 * The HTTP status of a `MusterError` code: 400 invalid input, 403 policy, 404 unknown,
 * 409 busy or stale, 502 for what a server or model failed (`MCP_*`, `TOOL_EXECUTION_FAILED`, …).
 */
export function statusOfCode(code: string): ContentfulStatusCode {
  return STATUS[code] ?? (code === 'SESSION_STORE_FAILED' ? 500 : 502);
}

/**
 * Answers a thrown value as `{ error: { code, message } }`. A `StudioHttpError` keeps its
 * status; a `MusterError` gets {@link statusOfCode} (its message carries no secrets); anything
 * else is `500 INTERNAL_ERROR` with a fixed message, so nothing unplanned leaks out.
 */
export function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof StudioHttpError)
    return c.json(
      { error: { code: err.code, message: err.message, ...err.extra } } satisfies StudioErrorBody,
      err.status,
    );
  if (MusterError.isInstance(err))
    return c.json(
      { error: { code: err.code, message: err.message } } satisfies StudioErrorBody,
      statusOfCode(err.code),
    );
  return c.json(
    {
      error: {
        code: 'INTERNAL_ERROR',
        message: 'The studio failed unexpectedly: see its terminal, then try again.',
      },
    } satisfies StudioErrorBody,
    500,
  );
}
