import { ModelError, abortedError } from '../../errors/index.js';
import type { MusterError } from '../../errors/index.js';

/** The error for a stream that stopped before the provider said the turn was over. */
export function truncatedStreamError(provider: string): ModelError {
  return new ModelError(
    'MODEL_RESPONSE_INVALID',
    `The ${provider} stream ended before the turn finished; retry the request.`,
    { isRetryable: true, details: { provider } },
  );
}

/**
 * The error for a stream that ended without its final event. Vendor clients end the stream
 * quietly when the signal fires: that is an abort, otherwise the stream was cut short.
 */
export function streamEndedEarlyError(provider: string, signal: AbortSignal): MusterError {
  if (signal.aborted) return abortedError(`The ${provider} stream`, signal.reason);
  return truncatedStreamError(provider);
}

/** Whether an HTTP status may succeed on a later attempt: timeouts, rate limits, 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** What to do about an HTTP failure status, as one sentence. */
export function statusAdvice(status: number): string {
  if (status === 401) return 'Check the API key.';
  if (status === 403) return 'Check that the key may use this model and project.';
  if (status === 404) return 'Check modelName and baseURL.';
  if (status === 408 || status >= 500) return 'Retry later.';
  if (status === 429) return 'Retry later or lower the request rate.';
  return 'Check the model name, messages and tools of the request.';
}

/** A message trimmed and without its final period, ready to sit inside a sentence. */
export function sentence(text: string): string {
  return text.trim().replace(/\.+$/, '');
}

/** A copy of a model error with `cause` set. */
export function withCause(error: ModelError, cause: unknown): ModelError {
  return new ModelError(error.code, error.message, {
    ...(error.status === undefined ? {} : { status: error.status }),
    isRetryable: error.isRetryable,
    details: error.details,
    cause,
  });
}

/**
 * Error types a vendor reports (in an error body or an in-stream error event) that a later
 * attempt may cure: Anthropic's `overloaded_error`, `rate_limit_error`, `api_error`,
 * `timeout_error`, and OpenAI's `server_error`, `rate_limit_exceeded` (whose streams the AI
 * SDK passes on as they are).
 */
const RETRYABLE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'overloaded_error',
  'rate_limit_error',
  'api_error',
  'timeout_error',
  'server_error',
  'rate_limit_exceeded',
]);

/** Whether a vendor-reported error type may succeed on a later attempt. */
export function isRetryableErrorType(type: string | undefined): boolean {
  return type !== undefined && RETRYABLE_ERROR_TYPES.has(type);
}
