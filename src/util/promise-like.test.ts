import { describe, expect, it } from 'vitest';
import { isPromiseLike } from './index.js';

describe('isPromiseLike', () => {
  it('holds for native promises and other thenables', () => {
    const settled = Promise.resolve(1);
    expect(isPromiseLike(settled)).toBe(true);
    expect(isPromiseLike({ then: () => undefined })).toBe(true);
    const callable = Object.assign(() => 1, { then: () => undefined });
    expect(isPromiseLike(callable)).toBe(true);
  });

  it('does not hold for plain values, results and objects with a non-function then', () => {
    for (const value of [undefined, null, 0, 'then', { ok: true, value: 1 }, { then: 1 }, () => 1])
      expect(isPromiseLike(value)).toBe(false);
  });
});
