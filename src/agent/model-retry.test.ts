import { afterEach, describe, expect, it, vi } from 'vitest';
import { ModelError, MusterError } from '../errors/index.js';
import { scriptedModel } from '../model/index.js';
import { sleepUnlessAborted } from '../util/index.js';
import { retryDelayMs } from './model-retry.js';
import { takeModelTurn } from './model-turn.js';
import { createAgent } from './index.js';

const rateLimited = () => {
  throw new ModelError('MODEL_REQUEST_FAILED', 'Rate limited: try later.', {
    status: 429,
    isRetryable: true,
  });
};

afterEach(() => {
  vi.useRealTimers();
});

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

describe('sleepUnlessAborted', () => {
  it('resolves false as soon as the signal fires, before the delay', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    let settled: boolean | undefined;
    const waiting = sleepUnlessAborted(60_000, controller.signal).then((ok) => (settled = ok));
    await vi.advanceTimersByTimeAsync(59_000);
    expect(settled).toBeUndefined();
    controller.abort();
    await waiting;
    expect(settled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolves true after the delay', async () => {
    vi.useFakeTimers();
    let settled: boolean | undefined;
    const waiting = sleepUnlessAborted(1000, new AbortController().signal).then(
      (ok) => (settled = ok),
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(settled).toBe(true);
  });
});

describe('takeModelTurn retries', () => {
  it('records the attempts on the ModelError thrown after retries', async () => {
    vi.useFakeTimers();
    const model = scriptedModel([rateLimited, rateLimited, rateLimited]);
    const turn = takeModelTurn(
      model,
      { messages: [{ role: 'user', content: 'hi' }], modelName: 'scripted' } as never,
      new AbortController().signal,
      () => undefined,
      { maxAttempts: 3, initialDelayMs: 1000 },
    );
    await vi.runAllTimersAsync();
    const { error } = await turn;
    expect(model.requests).toHaveLength(3);
    expect(ModelError.isInstance(error) && error.details).toMatchObject({ attempts: 3 });
    expect(error?.message).toBe('Rate limited: try later.');
  });

  it('a single attempt adds no attempts detail', async () => {
    const model = scriptedModel([rateLimited]);
    const { error } = await takeModelTurn(
      model,
      { messages: [{ role: 'user', content: 'hi' }], modelName: 'scripted' } as never,
      new AbortController().signal,
      () => undefined,
    );
    expect(error?.details['attempts']).toBeUndefined();
  });

  it('refuses more than 10 attempts', async () => {
    const model = scriptedModel([{ text: 'never' }]);
    const failed = await takeModelTurn(
      model,
      { messages: [{ role: 'user', content: 'hi' }], modelName: 'scripted' } as never,
      new AbortController().signal,
      () => undefined,
      { maxAttempts: 11 },
    ).catch((e: unknown) => e);
    expect(MusterError.isInstance(failed) && failed.code).toBe('INVALID_CONFIGURATION');
    expect(model.requests).toHaveLength(0);
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
