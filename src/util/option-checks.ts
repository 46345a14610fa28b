import { MusterError } from '../errors/index.js';

/** A check of one value: returns what is wrong with it, or `undefined` when it is fine. */
export type Check = (value: unknown) => string | undefined;

/** An optional value that, when present, must pass `check`. */
export const optional =
  (check: Check): Check =>
  (v) =>
    v === undefined ? undefined : check(v);

/** A function. */
export const isFunction: Check = (v) =>
  typeof v === 'function' ? undefined : 'must be a function';

/** A non-null object (not an array). */
export const isObject: Check = (v) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? undefined : 'must be an object';

/** A string, optionally with a pattern and a description of it. */
export const isString =
  (pattern?: RegExp, says?: string): Check =>
  (v) =>
    typeof v !== 'string'
      ? 'must be a string'
      : pattern && !pattern.test(v)
        ? `must be ${says}`
        : undefined;

/** A boolean. */
export const isBoolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'must be a boolean');

/** One of the given string values. */
export const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v)
      ? undefined
      : `must be one of ${values.map((x) => `'${x}'`).join(', ')}`;

/** An array whose items pass `item`. */
export const arrayOf =
  (item: Check, min = 0): Check =>
  (v) => {
    if (!Array.isArray(v)) return 'must be an array';
    if (v.length < min) return `must have at least ${min} item(s)`;
    for (const [i, x] of v.entries()) {
      const problem = item(x);
      if (problem) return `[${i}] ${problem}`;
    }
    return undefined;
  };

/** Either a single value passing `check`, or an array of them. */
export const oneOrMany =
  (check: Check): Check =>
  (v) =>
    Array.isArray(v) ? arrayOf(check)(v) : check(v);

/** A value whose checks are made elsewhere, with messages of their own (a key `shape` knows). */
export const checkedElsewhere: Check = () => undefined;

/**
 * An object with exactly these keys (each checked); unknown keys are refused, naming them, the
 * known keys, and the known key a misspelled one was probably meant to be.
 */
export const shape = (fields: Readonly<Record<string, Check>>): Check => {
  // listed once: a run request is checked against this on every run
  const known = new Set(Object.keys(fields));
  const checks = Object.entries(fields);
  return (v) => {
    const problem = isObject(v);
    if (problem) return problem;
    const keys = Object.keys(v as object);
    if (keys.some((k) => !known.has(k)))
      return unknownKeys(
        keys.filter((k) => !known.has(k)),
        known,
      );
    for (const [key, check] of checks) {
      const p = check((v as Record<string, unknown>)[key]);
      if (p) return p.startsWith('[') ? `${key}${p}` : `${key}: ${p}`;
    }
    return undefined;
  };
};

/** An object with the given methods. */
export const hasMethods =
  (methods: readonly string[], says: string): Check =>
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function')
      ? undefined
      : `must be ${says}`;

/** Throws `INVALID_CONFIGURATION` when `value` fails `check`. */
export function assertValid(value: unknown, check: Check, what: string): void {
  const problem = check(value);
  if (problem) throw new MusterError('INVALID_CONFIGURATION', `Invalid ${what}: ${problem}.`);
}

/** The problem of `unknown` keys: each (with the known key it was likely meant to be), the known keys. */
function unknownKeys(unknown: readonly string[], known: ReadonlySet<string>): string {
  const named = unknown.map((key) => {
    const near = nearest(key, known);
    return near === undefined ? key : `${key} (did you mean ${near}?)`;
  });
  return `has unknown key(s) ${named.join(', ')}; the known keys are ${[...known].join(', ')}`;
}

/** The known key `key` is closest to, when it is a likely misspelling of one (or none). */
function nearest(key: string, known: ReadonlySet<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(key.length / 3));
  for (const candidate of known) {
    const d =
      candidate.toLowerCase() === key.toLowerCase()
        ? 0
        : editDistance(key, candidate, bestDistance);
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance of `a` and `b`, or `max + 1` once it is surely over `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length]!;
}
