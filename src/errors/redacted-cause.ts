import { redact } from './redact-text.js';

// Node prints an error's `cause` chain, and every own property along it, when a host logs the
// error: a vendor's error quoting a response body, or a client error carrying the headers it
// sent, would print a secret. Every Muster error keeps a redacted copy of its cause instead.

/** The brand every Muster error carries (see `muster-error.ts`). */
const MUSTER_ERROR_BRAND = Symbol.for('muster.error');

/** Copies made here: a cause already redacted is not copied again for no new secret. */
const COPIES = new WeakSet<object>();

/** How many causes deep a chain is copied; deeper causes are dropped. */
const MAX_CHAIN = 8;

/** How deep the properties of one error are copied; deeper values become a marker. */
const MAX_DEPTH = 6;

/**
 * Own properties whose primitive values are typed facts (an errno, an HTTP status, a client
 * error code, a vendor's error type): Muster decides on them, so they are copied as they are.
 * Every other string is redacted.
 */
const FACT_KEYS: ReadonlySet<string> = new Set([
  'code',
  'errno',
  'syscall',
  'status',
  'statusCode',
  'type',
]);

/** Properties an error defines itself, copied by hand below. */
const OWN_PARTS: ReadonlySet<PropertyKey> = new Set([
  'name',
  'message',
  'stack',
  'cause',
  'errors',
]);

/**
 * A copy of `cause` that holds no secret: every string along it (messages, stacks, response
 * bodies in `data`, nested causes) has `secrets` and anything shaped like a credential masked.
 * An error keeps its prototype (so `instanceof` and the MCP client's and AI SDK's brands still
 * hold), its name, and its typed facts ({@link FACT_KEYS}) as they are; a value that is neither
 * plain data nor an error becomes a short marker (a URL its redacted text).
 *
 * A Muster error in the chain is kept as it is when there are no new secrets (its own chain was
 * redacted when it was built); with new secrets it is copied too, keeping its code and details
 * (secret-free by contract).
 */
export function redactedCause(cause: unknown, secrets: Iterable<string> = []): unknown {
  const list = [...secrets];
  return copyChain(cause, list, 0, new WeakMap());
}

function copyChain(
  cause: unknown,
  secrets: readonly string[],
  chain: number,
  seen: WeakMap<object, unknown>,
): unknown {
  if (typeof cause === 'string') return redact(cause, secrets);
  if (typeof cause !== 'object' || cause === null)
    return typeof cause === 'function' ? undefined : cause;
  if (secrets.length === 0 && (COPIES.has(cause) || isMusterError(cause))) return cause;
  if (chain >= MAX_CHAIN) return undefined;
  if (cause instanceof Error) return copyError(cause, secrets, chain, seen);
  return copyValue(cause, secrets, 0, chain, seen);
}

function isMusterError(value: object): boolean {
  return (value as Record<symbol, unknown>)[MUSTER_ERROR_BRAND] === true;
}

function copyError(
  err: Error,
  secrets: readonly string[],
  chain: number,
  seen: WeakMap<object, unknown>,
): Error {
  const known = seen.get(err);
  if (known) return known as Error;
  const copy = Object.create(Object.getPrototypeOf(err) as object) as Error;
  seen.set(err, copy);
  COPIES.add(copy);
  const muster = isMusterError(err);
  const hidden = (key: PropertyKey, value: unknown) =>
    Object.defineProperty(copy, key, { value, writable: true, configurable: true });
  hidden('name', safeRead(() => err.name) ?? 'Error');
  hidden('message', redact(String(safeRead(() => err.message) ?? ''), secrets));
  const stack = safeRead(() => err.stack);
  if (typeof stack === 'string') hidden('stack', redact(stack, secrets));
  // a fact a class computes (DOMException's `code`) is kept as its own value
  for (const key of FACT_KEYS) {
    if (Object.prototype.hasOwnProperty.call(err, key)) continue;
    const value = safeRead(() => (err as unknown as Record<string, unknown>)[key]);
    if (isPrimitive(value)) hidden(key, value);
  }
  for (const key of Reflect.ownKeys(err)) {
    if (OWN_PARTS.has(key)) continue;
    const desc = Object.getOwnPropertyDescriptor(err, key);
    if (!desc || !('value' in desc)) continue;
    const value: unknown = desc.value;
    let kept: unknown;
    if (typeof key === 'symbol') kept = brandValue(value);
    else if (muster || (FACT_KEYS.has(key) && isPrimitive(value))) kept = value;
    else kept = copyValue(value, secrets, 1, chain, seen);
    if (kept !== undefined || value === undefined)
      Object.defineProperty(copy, key, { ...desc, value: kept });
  }
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors))
    hidden(
      'errors',
      errors.map((e) => copyChain(e, secrets, chain + 1, seen)),
    );
  if ('cause' in err) {
    const inner = copyChain(err.cause, secrets, chain + 1, seen);
    if (inner !== undefined) hidden('cause', inner);
  }
  return copy;
}

/** Plain data copied with its strings redacted; errors inside it are copied as causes. */
function copyValue(
  value: unknown,
  secrets: readonly string[],
  depth: number,
  chain: number,
  seen: WeakMap<object, unknown>,
): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (typeof value === 'function') return undefined;
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Error) return copyChain(value, secrets, chain + 1, seen);
  if (seen.has(value)) return seen.get(value);
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(copyValue(item, secrets, depth + 1, chain, seen));
    return out;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof URL) return redact(value.href, secrets);
    const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return `[${typeof name === 'string' && name !== '' ? name : 'object'}]`;
  }
  const out: Record<string, unknown> = {};
  seen.set(value, out);
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      FACT_KEYS.has(key) && isPrimitive(item)
        ? item
        : copyValue(item, secrets, depth + 1, chain, seen);
  }
  return out;
}

/** A brand kept on a copy: a flag, or the MCP client's set of brand names. Nothing else. */
function brandValue(value: unknown): unknown {
  if (typeof value === 'boolean' || typeof value === 'number') return value;
  if (value instanceof Set && [...value].every((v) => typeof v === 'string')) return value;
  return undefined;
}

function isPrimitive(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}

/** A getter of a foreign class may throw on an odd instance: treated as absent. */
function safeRead<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
