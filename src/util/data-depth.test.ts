import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyData } from './copy-data.js';
import { dataDepth, jsonText, jsonTextDepth, MAX_DATA_DEPTH } from './data-depth.js';
import { deepFreeze, isDeepFrozen } from './deep-freeze.js';

/** `levels` arrays around a 1, or `levels` objects `{ a: ... }`. */
function nested(levels: number, kind: 'array' | 'object' = 'array'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

/** Deeper than JSON.stringify, structuredClone or any recursive walk can go. */
const VERY_DEEP = 100_000;

describe('jsonTextDepth', () => {
  it('counts the nesting of arrays and objects, not the brackets inside strings', () => {
    expect(jsonTextDepth('1')).toBe(0);
    expect(jsonTextDepth('{}')).toBe(1);
    expect(jsonTextDepth('{"a":[1,{"b":2}],"c":[]}')).toBe(3);
    expect(jsonTextDepth('{"a":"[[[{{{","b":"\\"[["}')).toBe(1);
    expect(jsonTextDepth(JSON.stringify(nested(3000)))).toBe(MAX_DATA_DEPTH + 1);
    expect(jsonTextDepth(JSON.stringify(nested(40)), 100)).toBe(40);
  });

  it('stops once past the limit, at any length', () => {
    const text = `${'['.repeat(VERY_DEEP)}${']'.repeat(VERY_DEEP)}`;
    expect(jsonTextDepth(text, 64)).toBe(65);
  });

  it('agrees with dataDepth on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        expect(jsonTextDepth(JSON.stringify(value), 100)).toBe(dataDepth(value, 100));
      }),
    );
  });
});

describe('dataDepth', () => {
  it('measures values of any depth without recursion, stopping past the limit', () => {
    expect(dataDepth('x')).toBe(0);
    expect(dataDepth({ a: [1, { b: null }] })).toBe(3);
    expect(dataDepth(nested(VERY_DEEP, 'object'))).toBe(MAX_DATA_DEPTH + 1);
    expect(dataDepth(nested(10), 5)).toBe(6);
  });

  it('counts a cycle as too deep', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(dataDepth(cycle, 10)).toBe(11);
  });
});

describe('jsonText', () => {
  it('writes what JSON.stringify writes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value));
      }),
    );
    const odd = {
      u: undefined,
      f: () => 1,
      s: Symbol('s'),
      list: [undefined, () => 1, NaN, Infinity],
      when: new Date(0),
      boxed: [new Number(2), new String('x'), new Boolean(false)],
      custom: { toJSON: (key: string) => `key ${key}` },
    };
    expect(jsonText(odd)).toBe(JSON.stringify(odd));
    expect(jsonText(undefined)).toBeUndefined();
    expect(() => jsonText({ n: 1n })).toThrow(TypeError);
  });

  it('writes values of any depth, and refuses a cycle', () => {
    const text = jsonText(nested(VERY_DEEP))!;
    expect(text).toHaveLength(2 * VERY_DEEP + 1);
    expect(text.startsWith('[[[')).toBe(true);
    const cycle: Record<string, unknown> = { list: [] };
    (cycle.list as unknown[]).push(cycle);
    expect(() => jsonText(cycle)).toThrow(TypeError);
    // the same object twice side by side is no cycle
    const shared = { a: 1 };
    expect(jsonText([shared, shared])).toBe('[{"a":1},{"a":1}]');
  });
});

describe('walks over deep data', () => {
  it('copyData and deepFreeze take values of any depth', () => {
    const value = nested(VERY_DEEP, 'object') as Record<string, unknown>;
    const copy = copyData(value);
    expect(copy === value).toBe(false);
    expect(dataDepth(copy, VERY_DEEP + 1)).toBe(VERY_DEEP);
    deepFreeze(copy);
    expect(isDeepFrozen(copy)).toBe(true);
    let inner: unknown = copy;
    for (let i = 0; i < VERY_DEEP; i++) {
      expect(Object.isFrozen(inner)).toBe(true);
      inner = (inner as { a: unknown }).a;
    }
    expect(inner).toBe(1);
  });
});
