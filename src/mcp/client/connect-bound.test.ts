import { describe, expect, it } from 'vitest';
import { ConnectBound } from './connect-bound.js';

/** The bound's failure once it fired (it fires on its own timer). */
async function firedFailure(bound: ConnectBound) {
  await new Promise<void>((resolve) => bound.signal.addEventListener('abort', () => resolve()));
  return bound.failure;
}

describe('ConnectBound', () => {
  it('names connectTimeoutMs and its value when a connect runs out of time', async () => {
    const failure = await firedFailure(new ConnectBound('s', 5));
    expect(failure?.message).toContain('within connectTimeoutMs (5 ms)');
    expect(failure?.details).toMatchObject({
      reason: 'timed-out',
      limit: 'connectTimeoutMs',
      limitMs: 5,
    });
  });

  it('adds the hint of the step it bounds while it is set', async () => {
    const hinted = new ConnectBound('s', 5);
    hinted.hintOnTimeout('Pin it.');
    expect((await firedFailure(hinted))?.message).toMatch(/connectTimeoutMs \(5 ms\).* Pin it\.$/);
    const taken = new ConnectBound('s', 5);
    taken.hintOnTimeout('Pin it.');
    taken.hintOnTimeout(undefined);
    expect((await firedFailure(taken))?.message).not.toContain('Pin it.');
  });
});
