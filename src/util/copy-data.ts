/** Nesting depth past which {@link copyData} hands the rest to `structuredClone` (cycles). */
const MAX_PLAIN_DEPTH = 64;

/**
 * A deep copy of `value`, the same as `structuredClone(value)`, made by hand for the plain
 * data stores and tool arguments carry (primitives, arrays, plain objects): a few small
 * objects copy an order of magnitude faster than through the serializer. Anything else (a
 * typed array, a `Date`, a `Map`, a function, a value nested deeper than 64 levels, which is
 * how a cycle shows) is left to `structuredClone`, so it is copied or refused as that would.
 */
export function copyData<T>(value: T): T {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'function' || typeof value === 'symbol'
      ? structuredClone(value)
      : value;
  }
  try {
    return copyPlain(value, 0) as T;
  } catch (err) {
    if (err !== DEEP) throw err;
    return structuredClone(value);
  }
}

/** Thrown (and caught above) when the walk is too deep to be plain data. */
const DEEP: unique symbol = Symbol('deep');

function copyPlain(value: object, depth: number): unknown {
  if (depth > MAX_PLAIN_DEPTH) throw DEEP;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = copyChild(value[i], depth);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    out[key] = copyChild((value as Record<string, unknown>)[key], depth);
  }
  return out;
}

function copyChild(child: unknown, depth: number): unknown {
  if (typeof child === 'object' && child !== null) return copyPlain(child, depth + 1);
  if (typeof child === 'function' || typeof child === 'symbol') return structuredClone(child);
  return child;
}
