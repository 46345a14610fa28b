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

  it('names the probe timeout when the legacy initialize it bounds runs out of time', async () => {
    const failure = await firedFailure(new ConnectBound('s', 5, undefined, 'probeTimeoutMs'));
    expect(failure?.message).toContain('within probeTimeoutMs (5 ms)');
    expect(failure?.message).not.toContain('connectTimeoutMs');
    expect(failure?.details).toMatchObject({
      reason: 'timed-out',
      limit: 'probeTimeoutMs',
      limitMs: 5,
    });
  });
});
