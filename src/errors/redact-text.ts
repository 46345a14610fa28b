/** The text that replaces a secret. */
const MASK = '[redacted]';

/** Values shorter than this are never treated as secrets (they would mask ordinary words). */
export const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every given secret, then anything shaped like a credential (`Bearer …`, `Basic …`,
 * `sk-…` API keys), in `text`. The one redactor of the package: MCP statuses and errors,
 * provider errors and the cause chains of every Muster error all pass through it.
 */
export function redact(
  text: string,
  secrets: string | Iterable<string> | null | undefined,
): string {
  let out = text;
  if (secrets) {
    const list = typeof secrets === 'string' ? [secrets] : [...secrets];
    for (const s of list.sort((a, b) => b.length - a.length))
      if (s.length >= MIN_SECRET_LENGTH) out = out.split(s).join(MASK);
  }
  return out
    .replace(/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${MASK}`)
    .replace(/\bsk-[A-Za-z0-9_*.-]+/g, `sk-${MASK}`);
}
