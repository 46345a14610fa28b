import { describe, expect, it } from 'vitest';
import { deepFreeze, isDeepFrozen } from './deep-freeze.js';
import { isoNow } from './iso-clock.js';

describe('deepFreeze', () => {
  it('freezes everything reachable and remembers the root', () => {
    const value = { a: { b: [1, { c: 2 }] }, d: 'x' };
    expect(isDeepFrozen(value)).toBe(false);
    deepFreeze(value);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(isDeepFrozen(value)).toBe(true);
    // a part is frozen, but only roots are known to be deeply frozen
    expect(isDeepFrozen(value.a)).toBe(false);
  });

  it('leaves binary views alone (they cannot be frozen) and counts primitives as frozen', () => {
    const value = { bytes: new Uint8Array([1, 2]) };
    deepFreeze(value);
    value.bytes[0] = 9;
    expect(value.bytes[0]).toBe(9);
    expect(isDeepFrozen('text')).toBe(true);
    expect(isDeepFrozen(null)).toBe(true);
    expect(isDeepFrozen(Object.freeze({ a: {} }))).toBe(false);
  });

  it('freezes through cycles, shared parts and parts the caller froze shallowly', () => {
    const shared = { s: { t: 1 } };
    const shallow = Object.freeze({ inner: { u: [2] } });
    const value: Record<string, unknown> = { one: shared, two: [shared], shallow };
    value.self = value;
    shared.s = Object.assign(shared.s, { back: value });
    deepFreeze(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(Object.isFrozen(shared.s)).toBe(true);
    expect(Object.isFrozen(shallow.inner)).toBe(true);
    expect(Object.isFrozen(shallow.inner.u)).toBe(true);
    expect(isDeepFrozen(value)).toBe(true);
  });
});

describe('isoNow', () => {
  it('is an ISO 8601 timestamp of the current time', () => {
    const before = Date.now();
    const now = isoNow();
    const after = Date.now();
    expect(new Date(now).toISOString()).toBe(now);
    expect(Date.parse(now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(now)).toBeLessThanOrEqual(after);
  });
});
