import { MIN_SECRET_LENGTH, redact } from '../errors/index.js';

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
