/**
 * Runs async steps one at a time, in the order they were asked for: the OAuth steps of one
 * server (logins, refreshes, code redemptions, logout) share the provider's state and the
 * login's draft, so they must not interleave. A failed step does not stop the next.
 */
export class Serial {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `step` after every step asked for before it. */
  run<T>(step: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(step, step);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
