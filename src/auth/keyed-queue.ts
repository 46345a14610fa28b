/**
 * Runs work one piece at a time per key: a call for a key starts once every earlier call for
 * that key has settled, whether it succeeded or failed. Keys with nothing pending are
 * forgotten, so the queue does not grow with the number of keys ever seen.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `work` after the work already queued for `key`; settles as `work` does. */
  run<T>(key: string, work: () => T | Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** How many keys have work queued or running (for tests and diagnostics). */
  get size(): number {
    return this.#tails.size;
  }
}
