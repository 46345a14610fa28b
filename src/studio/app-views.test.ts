import { describe, expect, it } from 'vitest';
import { AppViewStore } from './app-views.js';

describe('AppViewStore', () => {
  const view = { html: '<p>v</p>', csp: "default-src 'none'" };

  it('gives a view once, under a nonce of 32 random bytes', () => {
    const store = new AppViewStore();
    const nonce = store.put(view);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(store.put(view)).not.toBe(nonce);
    expect(store.take(nonce)).toEqual(view);
    expect(store.take(nonce)).toBeUndefined();
    expect(store.take('unknown')).toBeUndefined();
  });

  it('forgets a view once it expires', () => {
    let now = 1_000;
    const store = new AppViewStore({ ttlMs: 60_000, now: () => now });
    const late = store.put(view);
    const early = store.put(view);
    now += 59_999;
    expect(store.take(early)).toEqual(view);
    now += 1;
    expect(store.take(late)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('keeps at most maxPending views, dropping the oldest', () => {
    const store = new AppViewStore({ maxPending: 2 });
    const first = store.put(view);
    const second = store.put(view);
    const third = store.put(view);
    expect(store.size).toBe(2);
    expect(store.take(first)).toBeUndefined();
    expect(store.take(second)).toEqual(view);
    expect(store.take(third)).toEqual(view);
  });
});
