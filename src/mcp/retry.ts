import { MusterError } from '../errors/index.js';
import type { McpRetryOptions } from './operation-types.js';

/** Whether an operation may be retried at all: reads and lists may, tool calls only on request. */
export type OperationKind = 'read' | 'call';

/**
 * Runs `attempt` again after a failure while `retry` allows it, with exponential backoff and
 * jitter, bounded by `maxDelayMs`. Never after the signal aborted (a cancellation is final),
 * never for a `call` unless `retryNonIdempotent` is set. Retries are off without `retry`.
 */
export async function withRetry<T>(
  kind: OperationKind,
  retry: McpRetryOptions | undefined,
  signal: AbortSignal,
  attempt: () => Promise<T>,
): Promise<T> {
  const attempts = allowedAttempts(kind, retry);
  let delay = retry?.initialDelayMs ?? 0;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= attempts || signal.aborted || !retryable(err)) throw err;
      await sleep(
        jittered(Math.min(delay, retry!.maxDelayMs ?? 10_000), retry!.jitterRatio),
        signal,
      );
      if (signal.aborted) throw err;
      delay *= 2;
    }
  }
}

function allowedAttempts(kind: OperationKind, retry: McpRetryOptions | undefined): number {
  if (!retry) return 1;
  if (!Number.isSafeInteger(retry.maxAttempts) || retry.maxAttempts < 1 || retry.maxAttempts > 10)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `retry.maxAttempts must be a whole number from 1 to 10 (got ${String(retry.maxAttempts)}).`,
    );
  if (!(retry.initialDelayMs >= 0))
    throw new MusterError('INVALID_CONFIGURATION', 'retry.initialDelayMs must be 0 or more.');
  return kind === 'call' && retry.retryNonIdempotent !== true ? 1 : retry.maxAttempts;
}

/** Muster's own refusals (bad configuration, unknown server) are not worth a second try. */
function retryable(err: unknown): boolean {
  return !(MusterError.isInstance(err) && err.code === 'INVALID_CONFIGURATION');
}

function jittered(ms: number, ratio = 0.2): number {
  const r = Math.min(Math.max(ratio, 0), 1);
  return Math.round(ms * (1 - r + Math.random() * r * 2));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
