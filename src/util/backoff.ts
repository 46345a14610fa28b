import { MusterError } from '../errors/index.js';

/** Retries with exponential backoff: the fields every retry option in Muster shares. */
export interface RetryOptions {
  /** Attempts in all, the first included (2 means one retry); 1 to {@link MAX_RETRY_ATTEMPTS}. */
  readonly maxAttempts: number;
  /** The wait before the first retry; doubled after each one. */
  readonly initialDelayMs?: number;
  /** The longest wait between attempts. */
  readonly maxDelayMs?: number;
  /** How much of each wait is random (0 to 1): the wait is cut by up to this share of it. */
  readonly jitterRatio?: number;
}

/** A backoff with every field resolved. */
export interface BackoffSettings {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitterRatio: number;
}

/** The most attempts any retry option allows. */
export const MAX_RETRY_ATTEMPTS = 10;

/**
 * Checks retry options and resolves their defaults.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for attempts outside 1 to 10, a negative delay or
 * a jitter ratio outside 0 to 1; `what` names the option in the message (`retry`, `modelRetry`).
 */
export function resolveBackoff(
  what: string,
  options: RetryOptions,
  defaults: BackoffSettings,
): BackoffSettings {
  const refuse = (field: string, rule: string, got: unknown) =>
    new MusterError(
      'INVALID_CONFIGURATION',
      `${what}.${field} must be ${rule} (got ${String(got)}): fix the option.`,
      { details: { option: `${what}.${field}` } },
    );
  const { maxAttempts } = options;
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_RETRY_ATTEMPTS)
    throw refuse('maxAttempts', `a whole number from 1 to ${MAX_RETRY_ATTEMPTS}`, maxAttempts);
  const settings = {
    initialDelayMs: options.initialDelayMs ?? defaults.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? defaults.maxDelayMs,
    jitterRatio: options.jitterRatio ?? defaults.jitterRatio,
  };
  if (!(settings.initialDelayMs >= 0))
    throw refuse('initialDelayMs', '0 or more', settings.initialDelayMs);
  if (!(settings.maxDelayMs >= 0)) throw refuse('maxDelayMs', '0 or more', settings.maxDelayMs);
  if (!(settings.jitterRatio >= 0 && settings.jitterRatio <= 1))
    throw refuse('jitterRatio', 'from 0 to 1', settings.jitterRatio);
  return settings;
}

/**
 * The wait before retry number `attempt` (1 for the first retry): exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, then cut by a random share of up to `jitterRatio`,
 * so that many callers failing at once do not come back at the same moment and no wait
 * exceeds `maxDelayMs`. `random` returns a number in [0, 1] (`Math.random` by default).
 */
export function backoffDelay(
  settings: BackoffSettings,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * (1 - settings.jitterRatio + settings.jitterRatio * random()));
}

/** Waits `ms`; resolves true after it, or false at once when `signal` fires (or had fired). */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
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
