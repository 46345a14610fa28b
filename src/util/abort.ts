import { abortedError } from '../errors/index.js';

/**
 * Resolves or rejects with `promise`, or rejects with `ABORTED` as soon as `signal` fires,
 * whichever comes first. The losing promise keeps running; its rejection is swallowed.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortedError(what, signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(abortedError(what, signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * Aborts `target` with the reason of the first of `sources` to abort (at once when one has
 * already), as `AbortSignal.any` would, without building a new signal: a run's own controller
 * follows the agent's close signal and the caller's signal this way. Returns the function that
 * stops following; call it when the target's work ends, so a long-lived source keeps no
 * listener per finished run.
 */
export function followAbort(
  target: AbortController,
  sources: readonly (AbortSignal | undefined)[],
): () => void {
  const followed: AbortSignal[] = [];
  const onAbort = function (this: AbortSignal) {
    target.abort(this.reason);
  };
  const stop = () => {
    for (const s of followed) s.removeEventListener('abort', onAbort);
    followed.length = 0;
  };
  for (const source of sources) {
    if (!source || source === target.signal) continue;
    if (source.aborted) {
      stop();
      target.abort(source.reason);
      return stop;
    }
    source.addEventListener('abort', onAbort, { once: true });
    followed.push(source);
  }
  return stop;
}
