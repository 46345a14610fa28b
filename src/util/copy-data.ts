import { types } from 'node:util';

/** Nesting depth past which a copy is handed to `structuredClone` (how a cycle shows). */
const MAX_DEPTH = 64;
/** Objects one walk copies before it hands the whole value to `structuredClone`. */
const MAX_OBJECTS = 10_000;
/** Arrays longer than this go to `structuredClone` (it handles sparse ones without a walk). */
const MAX_WALKED_LENGTH = 100_000;

/**
 * A deep copy of `value`, the same as `structuredClone(value)` for the plain data stores and
 * tool arguments carry (primitives, arrays, plain objects), made by hand: a few small objects
 * copy several times faster than through the serializer. A `__proto__` key stays an own
 * property. Anything else (a typed array, a `Date`, a `Map`, a proxy, a function, an array
 * over 100,000 items) is left to `structuredClone`, so it is copied or refused as that would;
 * so is the whole value when it nests deeper than 64 levels (a cycle) or holds more than
 * 10,000 objects (an object shared many times over). Below those bounds an object reached
 * twice is copied twice, as a JSON round trip would, and an array's non-index properties are
 * not copied (JSON has neither).
 */
export function copyData<T>(value: T): T {
  if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value);
  if (typeof value !== 'object' || value === null) return value;
  const walk = { objects: 0 };
  try {
    return copyObject(value, 0, walk) as T;
  } catch (err) {
    if (err !== TOO_BIG) throw err;
    return structuredClone(value);
  }
}

/** Thrown (and caught above) when the walk leaves the bounds of plain data. */
const TOO_BIG: unique symbol = Symbol('too big');

function copyObject(value: object, depth: number, walk: { objects: number }): unknown {
  if (depth > MAX_DEPTH || ++walk.objects > MAX_OBJECTS) throw TOO_BIG;
  if (types.isProxy(value)) return structuredClone(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || value.length > MAX_WALKED_LENGTH)
      return structuredClone(value);
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++)
      if (i in value) out[i] = copyChild(value[i], depth, walk);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = copyChild((value as Record<string, unknown>)[key], depth, walk);
    if (key === '__proto__') defineOwn(out, key, child);
    else out[key] = child;
  }
  return out;
}

function copyChild(child: unknown, depth: number, walk: { objects: number }): unknown {
  if (typeof child === 'object' && child !== null) return copyObject(child, depth + 1, walk);
  if (typeof child === 'function' || typeof child === 'symbol') return structuredClone(child);
  return child;
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
