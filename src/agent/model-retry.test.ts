import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import { retryDelayMs, waitUnlessAborted } from './model-retry.js';
import { createAgent } from './index.js';

describe('retryDelayMs', () => {
  const options = { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 300 };

  it('doubles from the initial delay, caps at the maximum, and jitters in the upper half', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(options, n, () => 1))).toEqual([
      100, 200, 300, 300,
    ]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(options, n, () => 0))).toEqual([50, 100, 150, 150]);
  });

  it('uses 500 ms doubling to 8 s by default', () => {
    expect(retryDelayMs({ maxAttempts: 9 }, 1, () => 1)).toBe(500);
    expect(retryDelayMs({ maxAttempts: 9 }, 9, () => 1)).toBe(8000);
  });
});

describe('waitUnlessAborted', () => {
  it('resolves false as soon as the signal fires', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = waitUnlessAborted(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('resolves true after the delay', async () => {
    expect(await waitUnlessAborted(1, new AbortController().signal)).toBe(true);
  });
});

describe('modelRetry options', () => {
  it.each([
    { maxAttempts: 0 },
    { maxAttempts: 2, initialDelayMs: -1 },
    { maxAttempts: 2, extra: 1 },
  ])('refuses %j with INVALID_CONFIGURATION', (modelRetry) => {
    let caught: unknown;
    try {
      createAgent({ modelRetry } as never);
    } catch (err) {
      caught = err;
    }
    expect(MusterError.isInstance(caught) && caught.code).toBe('INVALID_CONFIGURATION');
  });
});
