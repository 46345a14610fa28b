/** How deep a cause chain is followed: wrappers nest a few levels, never more. */
const MAX_DEPTH = 6;

/**
 * The first non-undefined answer of `pick` along `err` and its `cause` chain (at most a few
 * levels deep), so every lookup of a fact in a chain of wrapped errors walks it the same way.
 */
export function findInCauseChain<T>(
  err: unknown,
  pick: (error: unknown) => T | undefined,
): T | undefined {
  for (let e: unknown = err, depth = 0; e && depth < MAX_DEPTH; depth++) {
    const found = pick(e);
    if (found !== undefined) return found;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
