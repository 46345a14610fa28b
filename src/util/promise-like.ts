/**
 * True for a promise or any other thenable: what `await` would wait on. A stage that may answer
 * at once or later is awaited only when this holds (each `await` is a turn of the microtask
 * queue), and a thenable that is not a native promise is still waited on.
 */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
