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
