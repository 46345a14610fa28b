import { ModelError, redactedCause } from '../../errors/index.js';
import { redact } from '../../util/index.js';

// The failures every vendor client reports the same way (a timeout, an unreachable API,
// anything unrecognized), worded once. Each provider recognizes them by its own SDK's classes.

/**
 * The cause a provider error keeps: a copy of what the vendor client threw with the API key
 * masked along its whole chain (a vendor's error quotes the response body, which a
 * misconfigured endpoint may fill with the key it was sent).
 */
export function keyRedactedCause(cause: unknown, apiKey: string | null | undefined): unknown {
  return redactedCause(cause, apiKey ? [apiKey] : []);
}

/** The request timed out before an answer: retryable. */
export function requestTimedOut(
  provider: string,
  cause: unknown,
  apiKey: string | null | undefined,
): ModelError {
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `The ${provider} request timed out; retry it, or raise the client's timeout.`,
    { isRetryable: true, cause: keyRedactedCause(cause, apiKey), details: { provider } },
  );
}

/** The API could not be reached (DNS, refused, reset): retryable; the key is redacted. */
export function apiUnreachable(
  provider: string,
  message: string,
  apiKey: string | null | undefined,
  cause: unknown,
): ModelError {
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `Could not reach the ${provider} API: ${redact(message, apiKey)}. Check the network and baseURL, then retry.`,
    { isRetryable: true, cause: keyRedactedCause(cause, apiKey), details: { provider } },
  );
}

/** Anything else a request threw: not retryable; the key is redacted. */
export function requestFailed(
  provider: string,
  err: unknown,
  apiKey: string | null | undefined,
): ModelError {
  const reason = err instanceof Error ? err.message : String(err);
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `The ${provider} request failed: ${redact(reason, apiKey)}`,
    { isRetryable: false, cause: keyRedactedCause(err, apiKey), details: { provider } },
  );
}
