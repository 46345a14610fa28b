/**
 * What an agent waits for to be idle: its runs (told by `runsIdle`) and the work it tracks
 * outside runs (initialize, registry changes, connects). `awaitIdle()`, `REGISTRY_BUSY` and
 * `close()` read it; a root and each child have their own.
 */
export class IdleTracker {
  readonly #activities = new Set<Promise<unknown>>();
  #waiters: (() => void)[] = [];

  /** `runsIdle` says whether no run of the agent is in flight. */
  constructor(private readonly runsIdle: () => boolean) {}

  /** The tracked work still in flight. */
  get activities(): ReadonlySet<Promise<unknown>> {
    return this.#activities;
  }

  /** Tracks `work` until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#activities.add(work);
    const done = () => {
      this.#activities.delete(work);
      this.wake();
    };
    work.then(done, done);
    return work;
  }

  /** True when no run and no tracked work is in flight. */
  idle(): boolean {
    return this.runsIdle() && this.#activities.size === 0;
  }

  /** Resolves when the agent is idle. */
  wait(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Wakes the waiters once the agent is idle (call it when a run or work ends). */
  wake(): void {
    if (!this.idle()) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
