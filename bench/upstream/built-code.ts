/**
 * Writes text of the official client's built files in a patch definition. The client's build
 * (tsdown) indents with tabs; a definition is written with two spaces per tab instead, so
 * that the formatter leaves it alone and a reader sees the same shape:
 *
 * - the line break right after the opening backtick is dropped;
 * - each pair of leading spaces on a line becomes one tab (an odd count is an error);
 * - the text is taken raw (backslashes stay as written), except that `` \` `` and `\$` stand
 *   for a backtick and a dollar sign, so that built template literals can be written.
 */
export function js(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  if (values.length > 0) throw new Error('js``: no interpolations (write \\${ for a literal ${)');
  const raw = (strings.raw[0] ?? '').replace(/\\([`$])/g, '$1');
  const text = raw.startsWith('\n') ? raw.slice(1) : raw;
  return text
    .split('\n')
    .map((line, index) => {
      const spaces = /^ */.exec(line)?.[0].length ?? 0;
      if (spaces % 2 !== 0)
        throw new Error(`js\`\`: odd indentation on line ${index + 1}: ${line}`);
      return '\t'.repeat(spaces / 2) + line.slice(spaces);
    })
    .join('\n');
}
