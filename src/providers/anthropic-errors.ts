import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from '@anthropic-ai/sdk';
import { ModelError, MusterError, abortedError } from '../errors/index.js';
import { redact } from '../util/index.js';
import {
  apiUnreachable,
  isRetryableErrorType,
  isRetryableStatus,
  keyRedactedCause,
  requestFailed,
  requestTimedOut,
  sentence,
  statusAdvice,
} from './kit/index.js';

/**
 * Turns anything an Anthropic request or stream threw into a Muster error: `ABORTED` when the
 * signal fired, otherwise a `ModelError` whose `isRetryable` follows the HTTP status (429,
 * 5xx, 529 overloaded) or, for an `error` event inside a stream, the error type. Messages and
 * details never carry the API key.
 */
export function toAnthropicFailure(
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
  if (err instanceof APIError) return apiError(err, provider, apiKey);
  return requestFailed(provider, err, apiKey);
}

function apiError(err: APIError, provider: string, apiKey: string | null | undefined): ModelError {
  const body = err.error as { error?: { type?: unknown; message?: unknown } } | undefined;
  const errorType = typeof body?.error?.type === 'string' ? body.error.type : undefined;
  const bodyMessage = typeof body?.error?.message === 'string' ? body.error.message : undefined;
  const reason = sentence(redact(bodyMessage ?? err.message.replace(/^\d{3}\s+/, ''), apiKey));
  const details: Record<string, unknown> = { provider };
  if (errorType) details['errorType'] = errorType;
  if (err.requestID) details['requestId'] = err.requestID;
  const status = err.status;
  if (typeof status !== 'number') {
    // An `error` event inside a stream: no status, the type says what happened.
    return new ModelError(
      'MODEL_REQUEST_FAILED',
      `${provider} reported a failure${errorType ? ` (${errorType})` : ''}: ${reason}. Retry later if it persists.`,
      {
        isRetryable: isRetryableErrorType(errorType),
        cause: keyRedactedCause(err, apiKey),
        details,
      },
    );
  }
  details['status'] = status;
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `The ${provider} API answered HTTP ${status}: ${reason}. ${statusAdvice(status)}`,
    {
      status,
      isRetryable: isRetryableStatus(status),
      cause: keyRedactedCause(err, apiKey),
      details,
    },
  );
}
