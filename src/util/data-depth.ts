/**
 * The deepest nesting Muster takes in data it did not make: a model's tool arguments, a
 * server's results and schemas, a stored session. It is the most `limits.maxToolArgumentDepth`
 * may be; stored tool arguments nested deeper are kept as their JSON text, and walks over such
 * data stop here. Deep nesting is not only useless: `JSON.stringify`, `structuredClone` and any
 * recursive walk overflow the stack at a few thousand levels, which a few KB of JSON reach.
 */
export const MAX_DATA_DEPTH = 256;

/**
 * How deep JSON text nests: 0 for a scalar, 1 for `{}` or `[1]`, one more for each array or
 * object inside. Counted from the brackets outside strings, without parsing (any length, no
 * recursion); once past `limit` it stops and returns `limit + 1`. Text that is not JSON is
 * counted as far as its brackets go.
 */
export function jsonTextDepth(text: string, limit: number = MAX_DATA_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit) return limit + 1;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * How deep a value nests, counted as {@link jsonTextDepth} counts its JSON: 0 for a primitive,
 * one more for each object or array. Walked without recursion; once past `limit` it stops and
 * returns `limit + 1` (so a cycle counts as too deep).
 */
export function dataDepth(value: unknown, limit: number = MAX_DATA_DEPTH): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  const stack: [object, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > limit) return limit + 1;
    }
    const children: unknown[] = Array.isArray(node)
      ? node
      : Object.values(node as Record<string, unknown>);
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Text written as it is (punctuation), told apart from values on the stack. */
class Raw {
  constructor(readonly text: string) {}
}

/**
 * `JSON.stringify(value)` without recursion, for data of any depth: plain objects, arrays and
 * primitives, with `toJSON` honoured as `JSON.stringify` does. What that would leave out (an
 * `undefined`, a function or a symbol as a property) is left out, and is `null` in an array;
 * `undefined` when the value itself is one of those. A cycle is refused with a `TypeError`,
 * as `JSON.stringify` refuses it.
 */
export function jsonText(value: unknown): string | undefined {
  const top = jsonValue(value, '');
  if (top === undefined) return undefined;
  if (typeof top !== 'object' || top === null) return JSON.stringify(top);
  const out: string[] = [];
  // the objects being written (a value met again inside itself is a cycle)
  const open = new Set<object>();
  const stack: unknown[] = [top];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Raw) {
      out.push(item.text);
      continue;
    }
    if (item instanceof Closed) {
      open.delete(item.value);
      continue;
    }
    if (typeof item !== 'object' || item === null) {
      out.push(JSON.stringify(item));
      continue;
    }
    if (open.has(item)) throw new TypeError('Converting circular structure to JSON');
    open.add(item);
    const parts: unknown[] = [];
    if (Array.isArray(item)) {
      parts.push(new Raw('['));
      for (let i = 0; i < item.length; i++) {
        if (i > 0) parts.push(new Raw(','));
        parts.push(jsonValue(item[i], String(i)) ?? null);
      }
      parts.push(new Raw(']'), new Closed(item));
    } else {
      parts.push(new Raw('{'));
      let first = true;
      for (const key of Object.keys(item)) {
        const v = jsonValue((item as Record<string, unknown>)[key], key);
        if (v === undefined) continue;
        parts.push(new Raw(`${first ? '' : ','}${JSON.stringify(key)}:`), v);
        first = false;
      }
      parts.push(new Raw('}'), new Closed(item));
    }
    for (let i = parts.length - 1; i >= 0; i--) stack.push(parts[i]);
  }
  return out.join('');

  function jsonValue(v: unknown, key: string): unknown {
    let x = v;
    if (
      typeof x === 'object' &&
      x !== null &&
      typeof (x as { toJSON?: unknown }).toJSON === 'function'
    )
      x = (x as { toJSON: (key: string) => unknown }).toJSON(key);
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') return undefined;
    // boxed primitives and non-finite numbers come out as JSON.stringify writes them
    if (typeof x !== 'object' || x === null) return x;
    if (x instanceof Number || x instanceof String || x instanceof Boolean) return x.valueOf();
    return x;
  }
}

/** Marks where a value's text ends, so it leaves the set of open values. */
class Closed {
  constructor(readonly value: object) {}
}
