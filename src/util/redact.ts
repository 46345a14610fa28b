import { MIN_SECRET_LENGTH, redact } from '../errors/index.js';

/**
 * A set of secret values that grows over time (declared headers and env at first, OAuth
 * tokens once they are issued). Every message that may reach a status, an event or an error
 * is passed through {@link SecretRegistry.redact}.
 */
export class SecretRegistry {
  readonly #values = new Set<string>();
  #sorted: string[] | undefined;
  /** The parent's list {@link #sorted} was built from (a parent that grew rebuilds it). */
  #parentSeen: readonly string[] | undefined;

  /**
   * @param values the first values to scrub.
   * @param parent a registry whose values this one scrubs too, as they are now and as they
   *   grow; what is added here never reaches the parent (a principal's tokens stay in the
   *   principal's registry, dropped with it, while the server's declared secrets still apply).
   */
  constructor(
    values: Iterable<string> = [],
    private readonly parent?: SecretRegistry,
  ) {
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
    const inherited = this.parent?.values();
    if (inherited !== this.#parentSeen) this.#sorted = undefined;
    this.#parentSeen = inherited;
    this.#sorted ??= [...this.#values, ...(inherited ?? [])].sort((a, b) => b.length - a.length);
    return this.#sorted;
  }

  /** `text` with every known secret and every token-like string masked. */
  redact(text: string): string {
    return redact(text, this.values());
  }
}
