// Small hand-written checks for MCP configuration, so that validating it loads no module
// (createAgent starts nothing and stays cheap). Every check reports problems with their path;
// unknown keys are refused by `object`.

/** One problem: where it is (`''` for the value itself) and what is wrong. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** Checks one value and pushes its problems, each under `path`, onto `issues`. */
export type Check = (value: unknown, path: string, issues: ConfigIssue[]) => void;

/** The path of a key of an object at `path`. */
function keyPath(path: string, key: string): string {
  const safe = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return path === '' ? safe : `${path}.${safe}`;
}

function fail(v: unknown, path: string, issues: ConfigIssue[], says: string): void {
  issues.push({
    path,
    message: v === undefined ? `is missing (must be ${says})` : `must be ${says}`,
  });
}

/** A check from a predicate and what the value must be (`must be ${says}`). */
export function is(test: (v: unknown) => boolean, says: string): Check {
  return (v, path, issues) => {
    if (!test(v)) fail(v, path, issues, says);
  };
}

/** A value that may be absent; when present it must pass `check`. */
export function optional(check: Check): Check {
  return (v, path, issues) => {
    if (v !== undefined) check(v, path, issues);
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string of at least `min` characters (1 by default), optionally with a pattern. */
export function string(
  options: { min?: number; pattern?: RegExp; says?: string; trim?: boolean } = {},
): Check {
  const min = options.min ?? 1;
  const says = options.says ?? (min > 0 ? 'a non-empty string' : 'a string');
  return is(
    (v) =>
      typeof v === 'string' &&
      (options.trim ? v.trim() : v).length >= min &&
      (options.pattern === undefined || options.pattern.test(v)),
    says,
  );
}

/** A boolean. */
export const boolean: Check = is((v) => typeof v === 'boolean', 'true or false');

/** A function. */
export const func: Check = is((v) => typeof v === 'function', 'a function');

/** A whole number from `min` to `max`. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Check {
  const says =
    max === Number.MAX_SAFE_INTEGER
      ? `a whole number >= ${min}`
      : `a whole number from ${min} to ${max}`;
  return is((v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max, says);
}

/** A number (not NaN) from `min` to `max`. */
export function number(min: number, max: number): Check {
  return is((v) => typeof v === 'number' && v >= min && v <= max, `a number from ${min} to ${max}`);
}

/** One of the given string values. */
export function oneOf(values: readonly string[]): Check {
  const says = values.map((x) => `'${x}'`).join(', ');
  return is((v) => typeof v === 'string' && values.includes(v), `one of ${says}`);
}

/** An array whose items pass `item`. */
export function arrayOf(item: Check): Check {
  return (v, path, issues) => {
    if (!Array.isArray(v)) {
      fail(v, path, issues, 'an array');
      return;
    }
    v.forEach((x, i) => item(x, `${path}[${i}]`, issues));
  };
}

/** An object of any keys whose values pass `value`. */
export function recordOf(value: Check, says = 'an object'): Check {
  return (v, path, issues) => {
    if (!isPlainObject(v)) {
      fail(v, path, issues, says);
      return;
    }
    for (const key of Object.keys(v)) value(v[key], keyPath(path, key), issues);
  };
}

/** An object with these keys (each checked); other keys are refused unless `loose`. */
export function object(fields: Readonly<Record<string, Check>>, loose = false): Check {
  const known = Object.keys(fields);
  return (v, path, issues) => {
    if (!isPlainObject(v)) {
      fail(v, path, issues, 'an object');
      return;
    }
    if (!loose) {
      const unknown = Object.keys(v).filter((k) => !Object.hasOwn(fields, k));
      if (unknown.length > 0)
        issues.push({
          path,
          message: `unknown key(s) ${unknown.join(', ')} (known: ${known.join(', ')})`,
        });
    }
    for (const key of known) fields[key]!(v[key], keyPath(path, key), issues);
  };
}

/**
 * The first of `checks` that the value passes. When none does, the problems of an alternative
 * whose own kind matched (every problem is inside the value, such as an array with a bad item)
 * are reported; otherwise `says` describes them all.
 */
export function anyOf(checks: readonly Check[], says: string): Check {
  return (v, path, issues) => {
    let inner: ConfigIssue[] | undefined;
    for (const check of checks) {
      const found: ConfigIssue[] = [];
      check(v, path, found);
      if (found.length === 0) return;
      if (!inner && found.every((i) => i.path !== path)) inner = found;
    }
    if (inner) issues.push(...inner);
    else fail(v, path, issues, says);
  };
}

/** An object discriminated by `type`: the check of its `type`, or one naming the known types. */
export function byType(variants: Readonly<Record<string, Check>>): Check {
  const says = `an object with type ${oneOfSays(Object.keys(variants))}`;
  return (v, path, issues) => {
    const type = isPlainObject(v) ? v['type'] : undefined;
    const variant =
      typeof type === 'string' && Object.hasOwn(variants, type) ? variants[type] : undefined;
    if (variant) variant(v, path, issues);
    else fail(v, path, issues, says);
  };
}

function oneOfSays(values: readonly string[]): string {
  return values.map((x) => `'${x}'`).join(' or ');
}

/** Runs `check` on `value`; its problems, in order (none when the value is valid). */
export function problems(check: Check, value: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  check(value, '', issues);
  return issues;
}

/** Problems as one line: `path: message; ...` (the first five; `(root)` for the value itself). */
export function describeProblems(issues: readonly ConfigIssue[]): string {
  const shown = issues
    .slice(0, 5)
    .map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message}`)
    .join('; ');
  return issues.length > 5 ? `${shown}; and ${issues.length - 5} more` : shown;
}
