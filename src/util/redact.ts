/** The text that replaces a secret. */
const MASK = '[redacted]';

/** Values shorter than this are never treated as secrets (they would mask ordinary words). */
export const MIN_SECRET_LENGTH = 4;

/**
 * A set of secret values that grows over time (declared headers and env at first, OAuth
 * tokens once they are issued). Every message that may reach a status, an event or an error
 * is passed through {@link SecretRegistry.redact}.
 */
export class SecretRegistry {
  readonly #values = new Set<string>();
  #sorted: string[] | undefined;

  constructor(values: Iterable<string> = []) {
    this.add(...values);
  }

  /** Adds values to scrub; short or non-string values are ignored. */
  add(...values: readonly unknown[]): void {
    for (const v of values) {
      if (typeof v !== 'string' || v.length < MIN_SECRET_LENGTH || this.#values.has(v)) continue;
      this.#values.add(v);
      this.#sorted = undefined;
    }
  }

  /** The known values, longest first (so a secret that contains another is masked whole). */
  values(): readonly string[] {
    this.#sorted ??= [...this.#values].sort((a, b) => b.length - a.length);
    return this.#sorted;
  }

  /** `text` with every known secret and every token-like string masked. */
  redact(text: string): string {
    return redact(text, this.values());
  }
}

/**
 * Replaces every given secret, then anything shaped like a credential (`Bearer …`, `Basic …`,
 * `sk-…` API keys), in `text`. The one redactor of the package: MCP statuses and errors and
 * provider errors all pass through it.
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
