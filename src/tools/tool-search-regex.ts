// The regex mode of `tool_search`: a model-written JavaScript regex run over every tool's name
// and description. A pattern can backtrack for ever, so it is bounded three ways: its length,
// its shape (no quantified group that holds a quantifier or an alternation, no
// backreferences: the classic catastrophic shapes), and a time limit on the whole scan.

/** The longest regex pattern accepted, in characters. */
export const MAX_REGEX_PATTERN_LENGTH = 200;
/** How long one regex scan of the catalog may take, in ms. */
export const REGEX_SCAN_TIMEOUT_MS = 100;

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
    else if (c === '(') open.push(false);
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
  const vm = await import('node:vm');
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
