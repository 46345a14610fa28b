import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MusterError } from '../errors/index.js';
import type { StudioErrorBody, StudioErrorCode } from './api-types.js';

/** One problem with a request body or an answer, per field path (`a.b`, '' for the whole). */
export interface StudioIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * A request the studio refuses with its own code (`STUDIO_FORBIDDEN`, `STUDIO_BAD_REQUEST`…).
 * Route modules throw it; the app's error handler turns it into the JSON error body.
 */
export class StudioHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: StudioErrorCode,
    message: string,
    readonly issues?: readonly StudioIssue[],
  ) {
    super(message);
    this.name = 'StudioHttpError';
  }
}

/** The HTTP status of a failure with a `MusterError` code. */
export function statusOfCode(code: string): ContentfulStatusCode {
  switch (code) {
    case 'INVALID_CONFIGURATION':
    case 'TOOL_ARGUMENTS_INVALID':
      return 400;
    case 'TOOL_DENIED':
    case 'TOOL_APPROVAL_REQUIRED':
      return 403;
    case 'TOOL_NOT_FOUND':
    case 'SESSION_NOT_FOUND':
      return 404;
    case 'SESSION_ALREADY_RUNNING':
    case 'REGISTRY_BUSY':
    case 'MCP_AUTH_REQUIRED':
    case 'ABORTED':
      return 409;
    case 'TOOL_RESULT_TOO_LARGE':
      return 413;
    case 'MCP_CONNECTION_FAILED':
    case 'MCP_DISCONNECTED':
    case 'MCP_OPERATION_FAILED':
    case 'MCP_EXTENSION_UNSUPPORTED':
    case 'MODEL_REQUEST_FAILED':
    case 'MODEL_RESPONSE_INVALID':
    case 'TOOL_EXECUTION_FAILED':
    case 'TOOL_OUTCOME_UNKNOWN':
      return 502;
    default:
      return 500;
  }
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
 * The answer to a failure thrown by a route: a studio refusal keeps its status and code, a
 * `MusterError` gets the status of its code, anything else is a 500 `INTERNAL_ERROR` whose
 * message says nothing of the failure (it could carry a secret).
 */
export function errorResponse(c: Context, err: unknown): Response {
  if (err instanceof StudioHttpError) {
    return c.json(errorBody(err.code, err.message, err.issues), err.status);
  }
  if (MusterError.isInstance(err)) {
    return c.json(errorBody(err.code, err.message), statusOfCode(err.code));
  }
  return c.json(
    errorBody(
      'INTERNAL_ERROR',
      'The studio failed unexpectedly: see the terminal running muster studio.',
    ),
    500,
  );
}
