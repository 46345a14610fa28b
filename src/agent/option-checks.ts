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

/** An object with exactly these keys (each checked); unknown keys are refused. */
export const shape = (fields: Readonly<Record<string, Check>>): Check => {
  // listed once: a run request is checked against this on every run
  const known = new Set(Object.keys(fields));
  const checks = Object.entries(fields);
  return (v) => {
    const problem = isObject(v);
    if (problem) return problem;
    const keys = Object.keys(v as object);
    if (keys.some((k) => !known.has(k)))
      return `has unknown key(s) ${keys.filter((k) => !known.has(k)).join(', ')}`;
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
