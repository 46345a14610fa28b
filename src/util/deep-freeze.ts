/** Roots frozen by {@link deepFreeze}: everything reachable from them is frozen too. */
const frozenRoots = new WeakSet<object>();

/**
 * Freezes `value` and everything reachable from it (objects and arrays; typed arrays and
 * other binary views stay as they are, since they cannot be frozen), and remembers the root
 * so {@link isDeepFrozen} can tell later without walking it again. Only for values the caller
 * built or copied: it changes the objects it is given. Returns `value`.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    freezeTree(value);
    frozenRoots.add(value);
  }
  return value;
}

/**
 * True when `value` is a primitive, or an object {@link deepFreeze} froze as a root: nothing in
 * it can change. A value frozen by other means answers false (its children may be mutable).
 */
export function isDeepFrozen(value: unknown): boolean {
  return typeof value !== 'object' || value === null || frozenRoots.has(value);
}

/**
 * Freezes `root` and what it reaches, without recursion (any depth; a cycle ends). An object
 * is frozen when first met, so meeting it again unfrozen cannot happen; the set of objects
 * met already frozen (shared, in a cycle, or frozen by the caller) is made only when one is
 * met: a fresh tree, the usual case, costs no set. Each object is walked at most twice.
 */
function freezeTree(root: object): void {
  const stack: object[] = [root];
  let seenFrozen: Set<object> | undefined;
  while (stack.length > 0) {
    const value = stack.pop()!;
    if (frozenRoots.has(value) || ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
      continue;
    if (Object.isFrozen(value)) {
      seenFrozen ??= new Set();
      if (seenFrozen.has(value)) continue;
      seenFrozen.add(value);
    } else Object.freeze(value);
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push(item);
    } else {
      for (const key in value) {
        const child = (value as Record<string, unknown>)[key];
        if (typeof child === 'object' && child !== null) stack.push(child);
      }
    }
  }
}
