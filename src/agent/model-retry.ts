import { backoffDelay, resolveBackoff } from '../util/index.js';
import type { BackoffSettings } from '../util/index.js';
import type { ModelRetryOptions } from './agent-options.js';

/** Defaults of the fields `modelRetry` leaves out: 500 ms doubling to 8 s, jitter in the upper half. */
export const MODEL_BACKOFF: BackoffSettings = Object.freeze({
  initialDelayMs: 500,
  maxDelayMs: 8000,
  jitterRatio: 0.5,
});

/**
 * Checks `modelRetry` and resolves its defaults.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for `maxAttempts` outside 1 to 10 or a negative delay.
 */
export function modelBackoff(options: ModelRetryOptions): BackoffSettings {
  return resolveBackoff('modelRetry', options, MODEL_BACKOFF);
}

/**
 * The wait before retry number `retry` (1 for the first retry): exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, with jitter (a random point in the upper half),
 * so that many runs hitting one rate limit do not come back at the same moment.
 */
export function retryDelayMs(
  options: ModelRetryOptions,
  retry: number,
  random: () => number = Math.random,
): number {
  return backoffDelay(modelBackoff(options), retry, random);
}
