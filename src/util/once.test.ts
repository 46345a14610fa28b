import { describe, expect, it } from 'vitest';
import { once } from './index.js';

describe('once', () => {
  it('makes the value on first use only, and hands the same one out after', async () => {
    let made = 0;
    const get = once(async () => ({ n: ++made }));
    expect(made).toBe(0);
    const [a, b] = [get(), get()];
    expect(a).toBe(b);
    expect(await a).toEqual({ n: 1 });
    expect(await get()).toBe(await a);
    expect(made).toBe(1);
  });

  it('keeps an undefined result instead of making it again', () => {
    let made = 0;
    const get = once(() => {
      made++;
      return undefined;
    });
    get();
    get();
    expect(made).toBe(1);
  });
});
