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

/** The controllers following each source signal; a source carries one listener that aborts them. */
const followed = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * Aborts `target` with the reason of the first of `sources` to abort (at once when one has
 * already), as `AbortSignal.any` would, without building a new signal: a run's own controller
 * follows the agent's close signal and the caller's signal this way. Every controller that
 * follows a source shares one listener on it, so a signal given to many concurrent runs (an
 * app-wide shutdown signal, the agent's close signal) carries one listener, not one per run.
 * Followers abort in the order they started following, after the listeners the source had
 * before the first of them. Returns the function that stops following; call it when the
 * target's work ends, so a long-lived source keeps nothing per finished run (its one listener
 * stays until it aborts or is collected).
 */
export function followAbort(
  target: AbortController,
  sources: readonly (AbortSignal | undefined)[],
): () => void {
  const mine: AbortSignal[] = [];
  const stop = () => {
    for (const source of mine) unfollow(source, target);
    mine.length = 0;
  };
  for (const source of sources) {
    if (!source || source === target.signal) continue;
    if (source.aborted) {
      stop();
      target.abort(source.reason);
      return stop;
    }
    let targets = followed.get(source);
    if (!targets) {
      const group = new Set<AbortController>();
      targets = group;
      followed.set(source, group);
      const onAbort = () => {
        followed.delete(source);
        for (const t of group) t.abort(source.reason);
        group.clear();
      };
      source.addEventListener('abort', onAbort, { once: true });
    }
    targets.add(target);
    mine.push(source);
  }
  return stop;
}

function unfollow(source: AbortSignal, target: AbortController): void {
  // the shared listener stays while the source lives (it holds no finished run): adding and
  // removing it per run would cost more than the run's other set-up
  followed.get(source)?.delete(target);
}
