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

/** The controllers following one source signal, and the one listener that aborts them. */
interface Followers {
  readonly targets: Set<AbortController>;
  readonly onAbort: () => void;
}

/** Per source signal: it carries one listener however many runs follow it. */
const followed = new WeakMap<AbortSignal, Followers>();

/**
 * Aborts `target` with the reason of the first of `sources` to abort (at once when one has
 * already), as `AbortSignal.any` would, without building a new signal: a run's own controller
 * follows the agent's close signal and the caller's signal this way. Every controller that
 * follows a source shares one listener on it, so a signal given to many concurrent runs (an
 * app-wide shutdown signal, the agent's close signal) carries one listener, not one per run.
 * Followers abort in the order they started following, after the listeners the source had
 * before the first of them. Returns the function that stops following; call it when the
 * target's work ends, so a long-lived source keeps nothing per finished run.
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
    let group = followed.get(source);
    if (!group) {
      const targets = new Set<AbortController>();
      const onAbort = () => {
        followed.delete(source);
        for (const t of targets) t.abort(source.reason);
        targets.clear();
      };
      group = { targets, onAbort };
      followed.set(source, group);
      source.addEventListener('abort', onAbort, { once: true });
    }
    group.targets.add(target);
    mine.push(source);
  }
  return stop;
}

function unfollow(source: AbortSignal, target: AbortController): void {
  const group = followed.get(source);
  if (!group || !group.targets.delete(target) || group.targets.size > 0) return;
  source.removeEventListener('abort', group.onAbort);
  followed.delete(source);
}
