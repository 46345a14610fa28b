/** How long the loop waits after a fetch found no job, in ms: doubled after each empty one. */
export const IDLE_POLL_MS = 100;

/** The longest wait between fetches of an idle loop, in ms. */
export const IDLE_POLL_MAX_MS = 2000;

/** Due times kept at most: a worker that parked more sessions keeps the earliest ones. */
const MAX_DUE = 1024;

/**
 * The job loop's wait between fetches that find nothing: doubled after each empty fetch (from
 * {@link IDLE_POLL_MS} up to {@link IDLE_POLL_MAX_MS}), back to the least after one that found
 * jobs, and never past the earliest delayed resume this loop queued itself (a task's next
 * poll): the loop fetches as that job falls due, not up to 2 s after it. Times are epoch ms,
 * passed in (no clock of its own).
 */
export class FetchBackoff {
  #idleMs = IDLE_POLL_MS;
  /** Due times of the delayed resumes this loop queued, ascending. */
  readonly #due: number[] = [];

  /** A fetch at `now` took `count` jobs. */
  fetched(count: number, now: number): void {
    let passed = 0;
    while (passed < this.#due.length && this.#due[passed]! <= now) passed++;
    this.#due.splice(0, passed);
    // a resume fell due: should it not be visible yet (clocks), the next fetch comes soon
    this.#idleMs =
      count > 0 || passed > 0 ? IDLE_POLL_MS : Math.min(this.#idleMs * 2, IDLE_POLL_MAX_MS);
  }

  /** The loop queued a resume that falls due at `at`. */
  queued(at: number): void {
    const due = this.#due;
    let i = due.length;
    while (i > 0 && due[i - 1]! > at) i--;
    due.splice(i, 0, at);
    if (due.length > MAX_DUE) due.pop();
  }

  /** How long to wait at `now` before the next fetch, in ms. */
  delay(now: number): number {
    const next = this.#due[0];
    return next === undefined ? this.#idleMs : Math.max(0, Math.min(this.#idleMs, next - now));
  }
}
