import { describe, expect, it } from 'vitest';
import { clampPollInterval } from './index.js';

describe('clampPollInterval', () => {
  it.each([
    [0, 250],
    [86_400_000, 5_000],
    [1_000, 1_000],
    [undefined, 250],
    [Number.NaN, 250],
    [Number.POSITIVE_INFINITY, 250],
  ])('a server asking for %s ms is polled every %s ms within [250, 5000]', (asked, waits) => {
    expect(clampPollInterval(asked, 250, 5_000)).toBe(waits);
  });
});
