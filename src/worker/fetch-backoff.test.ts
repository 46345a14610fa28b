import { describe, expect, it } from 'vitest';
import { FetchBackoff, IDLE_POLL_MAX_MS, IDLE_POLL_MS } from './fetch-backoff.js';

describe('FetchBackoff', () => {
  it('doubles after each empty fetch up to the most, and is back to the least after one that found jobs', () => {
    const b = new FetchBackoff();
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      b.fetched(0, 0);
      seen.push(b.delay(0));
    }
    expect(seen).toEqual([200, 400, 800, 1600, 2000, 2000, 2000, 2000]);
    expect(Math.max(...seen)).toBe(IDLE_POLL_MAX_MS);
    b.fetched(1, 0);
    expect(b.delay(0)).toBe(IDLE_POLL_MS);
  });

  it('an idle loop that queued a resume due in 300 ms fetches by then, not after its 2 s back-off', () => {
    const b = new FetchBackoff();
    for (let i = 0; i < 8; i++) b.fetched(0, 1_000);
    expect(b.delay(1_000)).toBe(IDLE_POLL_MAX_MS);
    b.queued(1_300);
    expect(b.delay(1_000)).toBe(300);
    expect(b.delay(1_250)).toBe(50);
    // due already (the loop woke late): at once
    expect(b.delay(1_400)).toBe(0);
  });

  it('keeps every due time in order: after the earliest passed, the next one caps the wait', () => {
    const b = new FetchBackoff();
    for (let i = 0; i < 8; i++) b.fetched(0, 0);
    b.queued(5_000);
    b.queued(300);
    b.queued(3_000);
    expect(b.delay(0)).toBe(300);
    // the fetch as the first fell due found nothing yet (its job not visible): soon again
    b.fetched(0, 300);
    expect(b.delay(300)).toBe(IDLE_POLL_MS);
    // the back-off grows again, but never past the next due time
    for (let i = 0; i < 8; i++) b.fetched(0, 2_000);
    expect(b.delay(2_000)).toBe(1_000);
    b.fetched(1, 3_000);
    expect(b.delay(3_000)).toBe(IDLE_POLL_MS);
    for (let i = 0; i < 8; i++) b.fetched(0, 4_000);
    expect(b.delay(4_000)).toBe(1_000);
    b.fetched(0, 5_000);
    for (let i = 0; i < 8; i++) b.fetched(0, 5_000);
    expect(b.delay(5_000)).toBe(IDLE_POLL_MAX_MS);
  });
});
