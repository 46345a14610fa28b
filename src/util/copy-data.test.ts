import { describe, expect, it } from 'vitest';
import { copyData } from './copy-data.js';

describe('copyData', () => {
  it('copies plain data deeply, as structuredClone does', () => {
    const value = { a: [1, { b: 'x', c: null, d: undefined }], e: { f: true, g: 2n } };
    const copy = copyData(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(copy).not.toBe(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
    expect('d' in (copy.a[1] as object)).toBe(true);
  });

  it('thaws frozen input and keeps array holes', () => {
    const list: number[] = new Array<number>(3);
    list[0] = 1;
    list[2] = 3;
    const value = Object.freeze({ list: Object.freeze(list) });
    const copy = copyData(value);
    expect(Object.isFrozen(copy)).toBe(false);
    expect(Object.isFrozen(copy.list)).toBe(false);
    expect(1 in copy.list).toBe(false);
    expect(copy.list).toHaveLength(3);
  });

  it('copies what is not plain data through structuredClone', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const when = new Date(0);
    const copy = copyData({ bytes, when, map: new Map([['k', 1]]) });
    expect(copy.bytes).toBeInstanceOf(Uint8Array);
    expect(copy.bytes).not.toBe(bytes);
    expect([...copy.bytes]).toEqual([1, 2, 3]);
    expect(copy.when).toBeInstanceOf(Date);
    expect(copy.when.getTime()).toBe(0);
    expect(copy.map.get('k')).toBe(1);
  });

  it('refuses what structuredClone refuses', () => {
    expect(() => copyData({ f: () => 1 })).toThrow(DOMException);
    expect(() => copyData([Symbol('s')])).toThrow(DOMException);
  });

  it('copies a cycle through structuredClone instead of overflowing', () => {
    const value: { self?: unknown; n: number } = { n: 1 };
    value.self = value;
    const copy = copyData(value);
    expect(copy.self).toBe(copy);
    expect(copy).not.toBe(value);
  });

  it('keeps a __proto__ key of parsed JSON an own property, never a prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"admin":true},"a":1}') as Record<string, unknown>;
    const copy = copyData(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'a']);
    expect((copy as { admin?: boolean }).admin).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
  });

  it('hands a value that shares one object many times over to structuredClone', () => {
    // 30 levels of { a: x, b: x }: 2^30 paths, which a plain walk would copy one by one
    let value: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 30; i++) value = { a: value, b: value };
    const copy = copyData(value);
    // (booleans: a failing expect would try to print 2^30 paths)
    expect(copy.a === copy.b).toBe(true);
    expect(copy.a === value.a).toBe(false);
  });

  it('refuses a proxy, as structuredClone does', () => {
    expect(() => copyData({ p: new Proxy({ a: 1 }, {}) })).toThrow(DOMException);
  });
});
