// The regex mode of `tool_search`: a model-written JavaScript regex run over every tool's name
// and description. A pattern can backtrack for ever, so it is bounded four ways: its length,
// its shape (no quantified group that holds a quantifier or an alternation, no
// backreferences, at most a few unbounded quantifiers, no large repetition counts), a time
// limit on each scan, and a time budget for all scans of a run.

import type * as NodeVm from 'node:vm';
import { once } from '../util/index.js';

/** `node:vm`, loaded on the first regex search (one shared promise). */
const loadVm = once(() => import('node:vm'));

/** The longest regex pattern accepted, in characters. */
export const MAX_REGEX_PATTERN_LENGTH = 200;
/** How long one regex scan of the catalog may take, in ms. */
export const REGEX_SCAN_TIMEOUT_MS = 20;
/** How long all regex scans of one run may take together, in ms. */
export const REGEX_RUN_BUDGET_MS = 100;
/** The largest count a bounded repetition (`{n}`, `{n,m}`) may use. */
export const MAX_REGEX_REPEAT = 100;
/** The most unbounded quantifiers (`*`, `+`, `{n,}`) a pattern may use. */
export const MAX_UNBOUNDED_QUANTIFIERS = 3;

/** A pattern that passed the checks, or why it did not. */
export type RegexCheck =
  | { readonly ok: true; readonly regex: RegExp }
  | { readonly ok: false; readonly reason: string };

/** Compiles a model-written pattern (case-insensitive) after the length and shape checks. */
export function compileSearchRegex(pattern: string): RegexCheck {
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH)
    return { ok: false, reason: `is longer than ${MAX_REGEX_PATTERN_LENGTH} characters` };
  if (/\\[1-9]|\\k</.test(pattern)) return { ok: false, reason: 'uses a backreference' };
  if (hasNestedQuantifier(pattern))
    return {
      ok: false,
      reason:
        'repeats a group that holds a quantifier or an alternation (such as (a+)+ or (a|b)*), which can take exponential time',
    };
  const counts = quantifierCounts(pattern);
  if (counts.unbounded > MAX_UNBOUNDED_QUANTIFIERS)
    return {
      ok: false,
      reason: `uses ${counts.unbounded} unbounded quantifiers (*, + or {n,}); at most ${MAX_UNBOUNDED_QUANTIFIERS} are allowed, as each one multiplies the backtracking`,
    };
  if (counts.largestCount > MAX_REGEX_REPEAT)
    return {
      ok: false,
      reason: `repeats ${counts.largestCount} times in a {n,m} count; at most ${MAX_REGEX_REPEAT} is allowed`,
    };
  try {
    return { ok: true, regex: new RegExp(pattern, 'i') };
  } catch (err) {
    return { ok: false, reason: `is not a valid JavaScript regex (${(err as Error).message})` };
  }
}

/**
 * True when a group that contains a quantifier or `|` is itself followed by `*`, `+` or `{`.
 * Escapes and character classes are skipped.
 */
function hasNestedQuantifier(pattern: string): boolean {
  const open: boolean[] = [];
  for (const [c, i] of plainChars(pattern)) {
    if (c === '(') open.push(false);
    else if (c === ')') {
      const risky = open.pop() ?? false;
      const next = pattern[i + 1];
      if (risky && (next === '*' || next === '+' || next === '{')) return true;
      if (risky && open.length > 0) open[open.length - 1] = true;
    } else if ((c === '*' || c === '+' || c === '{' || c === '|') && open.length > 0) {
      open[open.length - 1] = true;
    }
  }
  return false;
}

/** The characters of a pattern outside escapes and character classes, with their positions. */
function* plainChars(pattern: string): Generator<readonly [string, number]> {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else yield [c, i];
  }
}

/**
 * How many unbounded quantifiers (`*`, `+`, `{n,}`) a pattern has, and the largest count of
 * its `{n}` / `{n,m}` repetitions (escapes and character classes skipped).
 */
function quantifierCounts(pattern: string): { unbounded: number; largestCount: number } {
  let unbounded = 0;
  let largestCount = 0;
  for (const [c, i] of plainChars(pattern)) {
    if (c === '*' || c === '+') unbounded++;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (!m) continue;
      if (m[2] !== undefined && m[3] === '') unbounded++;
      largestCount = Math.max(largestCount, Number(m[1]), m[3] ? Number(m[3]) : 0);
    }
  }
  return { unbounded, largestCount };
}

/**
 * The positions of `texts` that `regex` matches, in order, at most `limit`. The scan runs
 * under a time limit: `undefined` when it did not finish within `timeoutMs`.
 */
export async function scanWithRegex(
  regex: RegExp,
  texts: readonly string[],
  limit: number,
  timeoutMs = REGEX_SCAN_TIMEOUT_MS,
): Promise<number[] | undefined> {
  return runScan(await loadVm(), regex, texts, limit, timeoutMs);
}

type Vm = typeof NodeVm;

function runScan(
  vm: Vm,
  regex: RegExp,
  texts: readonly string[],
  limit: number,
  timeoutMs: number,
): number[] | undefined {
  const script =
    'const found = []; for (let i = 0; i < texts.length && found.length < limit; i++) ' +
    '{ if (regex.test(texts[i])) found.push(i); } found.join(",")';
  try {
    const joined = vm.runInNewContext(script, { regex, texts, limit }, { timeout: timeoutMs }) as
      | string
      | undefined;
    return joined ? joined.split(',').map(Number) : [];
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return undefined;
    throw err;
  }
}

/** What a budgeted scan found, or why it did not finish. */
export type BudgetedScan = number[] | 'timeout' | 'spent';

/**
 * The regex time of one run: each scan may take at most `scanMs` (less when less is left),
 * all scans together at most `totalMs`; once that is spent, no scan runs. Time is measured
 * with `now` around each scan, so a scan that timed out counts in full.
 */
export class RegexTimeBudget {
  #spent = 0;

  /**
   * @param totalMs - the ms all scans of the run may take together
   * @param scanMs - the ms one scan may take
   * @param now - the clock, in ms (tests pass their own)
   */
  constructor(
    readonly totalMs = REGEX_RUN_BUDGET_MS,
    readonly scanMs = REGEX_SCAN_TIMEOUT_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The ms spent so far. */
  get spentMs(): number {
    return this.#spent;
  }

  /** Runs one scan within the budget (the check and the scan run without a pause between). */
  async scan(regex: RegExp, texts: readonly string[], limit: number): Promise<BudgetedScan> {
    const loaded = await loadVm();
    const left = this.totalMs - this.#spent;
    if (left < 1) return 'spent';
    const started = this.now();
    try {
      return (
        runScan(loaded, regex, texts, limit, Math.min(this.scanMs, Math.floor(left))) ?? 'timeout'
      );
    } finally {
      this.#spent += Math.max(0, this.now() - started);
    }
  }
}
