import { APICallError } from '@ai-sdk/provider';
import { ModelError, MusterError, abortedError } from '../errors/index.js';
import { redact } from '../util/index.js';
import { isRetryableErrorType, sentence, statusAdvice } from './kit/index.js';

/**
 * Turns anything an AI SDK model threw (or sent as an `error` stream part) into a Muster
 * error: `ABORTED` when the signal fired; an `APICallError` keeps its status and its own
 * `isRetryable`; anything else is a non-retryable `MODEL_REQUEST_FAILED`. The request URL,
 * headers and body are never copied into the message or details, and every message passes
 * through the package's redactor (the AI SDK model holds its key, so anything shaped like a
 * credential is masked).
 */
export function toAiSdkFailure(err: unknown, provider: string, signal: AbortSignal): MusterError {
  if (MusterError.isInstance(err)) return err;
  if (signal.aborted) return abortedError(`The ${provider} request`, signal.reason);
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    const details: Record<string, unknown> = { provider };
    if (status !== undefined) details['status'] = status;
    const reason = sentence(redact(err.message || 'no message', undefined));
    const message =
      status === undefined
        ? `The ${provider} request failed: ${reason}. Check the network and baseURL, then retry.`
        : `The ${provider} API answered HTTP ${status}: ${reason}. ${statusAdvice(status)}`;
    return new ModelError('MODEL_REQUEST_FAILED', message, {
      ...(status === undefined ? {} : { status }),
      isRetryable: err.isRetryable,
      cause: err,
      details,
    });
  }
  const reason = err instanceof Error ? err.message : describe(err);
  // An error the provider reported inside its stream arrives as the vendor's error object.
  const type = (err as { type?: unknown } | null)?.type;
  const errorType = typeof type === 'string' && !(err instanceof Error) ? type : undefined;
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `The ${provider} request failed${errorType ? ` (${errorType})` : ''}: ${sentence(redact(reason, undefined))}.`,
    {
      isRetryable: isRetryableErrorType(errorType),
      cause: err,
      details: { provider, ...(errorType ? { errorType } : {}) },
    },
  );
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'unknown error';
}
