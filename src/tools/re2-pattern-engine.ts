/**
 * What ajv's `code.regExp` option takes: a function that compiles a schema's `pattern` (and
 * each `patternProperties` key) into something with `test`, and a `code` string (used only
 * for standalone code, which Muster never generates).
 */
export type RegExpEngine = ((
  pattern: string,
  flags: string,
) => {
  test(input: string): boolean;
}) & { code: string };

let loading: Promise<RegExpEngine> | undefined;

/**
 * The engine a server's schema patterns run under: RE2 (the `re2js` port, loaded on first
 * use), whose matching takes time linear in the input, so a pattern such as `^(a+)+$` cannot
 * block the process. A pattern RE2 cannot compile (lookaround, backreferences, a repeat count
 * over 1,000) throws a `SyntaxError` naming it, as an invalid pattern does under the native
 * engine: the schema cannot be used, and fails closed.
 */
export function re2PatternEngine(): Promise<RegExpEngine> {
  loading ??= import('re2js').then(({ RE2JS }) => {
    const engine = (pattern: string) => {
      try {
        // JSON Schema patterns are ECMA-262: `\uXXXX`, `\cX`, `(?<name>` are rewritten for RE2
        return RE2JS.compile(RE2JS.translateRegExp(pattern));
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new SyntaxError(
          `the pattern ${JSON.stringify(pattern)} cannot run under RE2, the engine for a server's patterns (${why}): lookaround, backreferences and repeat counts over 1000 are not supported, so the server's schema must change`,
          { cause: err },
        );
      }
    };
    return Object.assign(engine, { code: 're2js' });
  });
  return loading;
}
