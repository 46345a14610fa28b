import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ModelError, MusterError, abortedError } from '../errors/index.js';
import { redact } from '../util/index.js';
import {
  apiUnreachable,
  isRetryableStatus,
  keyRedactedCause,
  requestFailed,
  requestTimedOut,
  sentence,
  statusAdvice,
  withCause,
} from './kit/index.js';

const RETRYABLE_ERROR_CODES = new Set(['server_error', 'rate_limit_exceeded', 'timeout']);

/**
 * The error for a failure the provider reported inside a stream or a response body
 * (`error` and `response.failed` events). `code` is the provider's error code.
 */
export function reportedError(
  provider: string,
  code: string | null | undefined,
  message: string | undefined,
  apiKey: string | null | undefined,
): ModelError {
  const reason = sentence(redact(message || 'no message', apiKey));
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `${provider} reported a failure${code ? ` (${code})` : ''}: ${reason}. Retry later if it persists.`,
    {
      isRetryable: code ? RETRYABLE_ERROR_CODES.has(code) : false,
      details: { provider, ...(code ? { errorCode: code } : {}) },
    },
  );
}

/**
 * Turns anything a request or stream threw into a Muster error: `ABORTED` when `signal`
 * fired, otherwise a `ModelError` whose `isRetryable` follows the HTTP status. Messages and
 * details never carry the API key or request headers.
 */
export function toModelFailure(
  err: unknown,
  provider: string,
  signal: AbortSignal,
  apiKey: string | null | undefined,
): MusterError {
  if (MusterError.isInstance(err)) return err;
  if (signal.aborted || err instanceof APIUserAbortError) {
    return abortedError(`The ${provider} request`, signal.reason);
  }
  if (err instanceof APIConnectionTimeoutError) return requestTimedOut(provider, err, apiKey);
  if (err instanceof APIConnectionError) return apiUnreachable(provider, err.message, apiKey, err);
  if (err instanceof APIError) {
    if (typeof err.status !== 'number') {
      return withCause(
        reportedError(provider, err.code, err.message, apiKey),
        keyRedactedCause(err, apiKey),
      );
    }
    return statusError(err, err.status, provider, apiKey);
  }
  if (err instanceof SyntaxError) {
    return new ModelError(
      'MODEL_RESPONSE_INVALID',
      `The ${provider} API sent data that is not valid JSON: ${redact(err.message, apiKey)}. Check that baseURL points at an OpenAI-compatible server.`,
      { isRetryable: false, cause: keyRedactedCause(err, apiKey), details: { provider } },
    );
  }
  return requestFailed(provider, err, apiKey);
}

function statusError(
  err: APIError,
  status: number,
  provider: string,
  apiKey: string | null | undefined,
): ModelError {
  const isRetryable = isRetryableStatus(status);
  const raw = err.message
    .replace(/^\d{3}\s+/, '')
    .replace('status code (no body)', 'no error body');
  const reason = sentence(redact(raw, apiKey));
  const details: Record<string, unknown> = { provider, status };
  if (err.code) details['errorCode'] = err.code;
  if (err.type) details['errorType'] = err.type;
  if (err.requestID) details['requestId'] = err.requestID;
  const message = `The ${provider} API answered HTTP ${status}: ${reason}. ${statusAdvice(status)}`;
  return new ModelError('MODEL_REQUEST_FAILED', message, {
    status,
    isRetryable,
    cause: keyRedactedCause(err, apiKey),
    details,
  });
}
