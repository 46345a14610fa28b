/**
 * `make`, called on first use and at most once: later calls return what the first returned (a
 * promise is shared, not made again). For a process-wide lazy import, without a module-level
 * variable that anything could write.
 *
 * @example
 * const loadDriver = once(() => import('better-sqlite3'));
 */
export function once<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
