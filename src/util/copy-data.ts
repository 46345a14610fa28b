import { types } from 'node:util';

/** Objects one walk copies before it hands the whole value to `structuredClone`. */
const MAX_OBJECTS = 10_000;
/** Arrays longer than this go to `structuredClone` (it handles sparse ones without a walk). */
const MAX_WALKED_LENGTH = 100_000;

/**
 * A deep copy of `value`, the same as `structuredClone(value)` for the plain data stores and
 * tool arguments carry (primitives, arrays, plain objects), made by hand: a few small objects
 * copy several times faster than through the serializer. A `__proto__` key stays an own
 * property. Anything else (a typed array, a `Date`, a `Map`, a proxy, a function, an array
 * over 100,000 items) is left to `structuredClone`, so it is copied or refused as that would.
 * A value of more than 10,000 objects is looked at again: one that reaches an object twice (a
 * cycle, or an object shared many times over) goes to `structuredClone` whole, any other is
 * copied by the same walk. The walk keeps its own stack, so no depth of nesting overflows it
 * (`structuredClone` does, at a few thousand levels). Below 10,000 objects an object reached
 * twice is copied twice, as a JSON round trip would, and an array's non-index properties are
 * not copied (JSON has neither).
 */
export function copyData<T>(value: T): T {
  if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value);
  if (typeof value !== 'object' || value === null) return value;
  try {
    return copyTree(value, MAX_OBJECTS) as T;
  } catch (err) {
    if (err !== TOO_BIG) throw err;
    return reachesTwice(value) ? structuredClone(value) : (copyTree(value, Infinity) as T);
  }
}

/** Thrown (and caught above) when the walk leaves the bounds of plain data. */
const TOO_BIG: unique symbol = Symbol('too big');

/** A source object and the copy its children go into. */
type Work = [source: object, target: unknown[] | Record<string, unknown>];

function copyTree(root: object, maxObjects: number): unknown {
  const work: Work[] = [];
  let objects = 0;
  /** The copy of one object: an empty container whose children are copied later, or a clone. */
  const open = (value: object): unknown => {
    if (++objects > maxObjects) throw TOO_BIG;
    if (types.isProxy(value)) return structuredClone(value);
    if (Array.isArray(value)) {
      if (Object.getPrototypeOf(value) !== Array.prototype || value.length > MAX_WALKED_LENGTH)
        return structuredClone(value);
      const out = new Array<unknown>(value.length);
      work.push([value, out]);
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return structuredClone(value);
    const out: Record<string, unknown> = {};
    work.push([value, out]);
    return out;
  };
  const child = (c: unknown): unknown => {
    if (typeof c === 'object' && c !== null) return open(c);
    if (typeof c === 'function' || typeof c === 'symbol') return structuredClone(c);
    return c;
  };
  const copy = open(root);
  while (work.length > 0) {
    const [source, target] = work.pop()!;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) if (i in source) out[i] = child(source[i]);
      continue;
    }
    const out = target as Record<string, unknown>;
    for (const key of Object.keys(source)) {
      const c = child((source as Record<string, unknown>)[key]);
      if (key === '__proto__') defineOwn(out, key, c);
      else out[key] = c;
    }
  }
  return copy;
}

/** True when the walk of {@link copyTree} would reach some array or plain object twice. */
function reachesTwice(root: object): boolean {
  const seen = new Set<object>();
  const stack: object[] = [root];
  while (stack.length > 0) {
    const value = stack.pop()!;
    if (seen.has(value)) return true;
    seen.add(value);
    if (types.isProxy(value)) continue;
    const proto: unknown = Object.getPrototypeOf(value);
    const children = Array.isArray(value)
      ? proto === Array.prototype && value.length <= MAX_WALKED_LENGTH
        ? value
        : []
      : proto === Object.prototype || proto === null
        ? Object.values(value)
        : [];
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push(child);
  }
  return false;
}

/**
 * Sets `key` as an own, ordinary data property, as `JSON.parse` and `structuredClone` make it:
 * an assignment to `__proto__` would set the prototype instead.
 */
function defineOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
