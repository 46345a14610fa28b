import type { ModelRetryOptions } from './agent-options.js';

/** Defaults of the fields `modelRetry` leaves out. */
const DEFAULT_INITIAL_DELAY_MS = 500;
const DEFAULT_MAX_DELAY_MS = 8000;

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
  const initial = options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const ceiling = Math.min(max, initial * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Waits `ms`; resolves false at once when `signal` fires. */
export function waitUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
