import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../util/index.js';
import { ownArguments } from './call-arguments.js';

describe('ownArguments', () => {
  it('keeps a parsed __proto__ key an own property when it copies a frozen part', () => {
    const args = JSON.parse('{"__proto__":{"admin":true},"n":1}') as Record<string, unknown>;
    deepFreeze(Object.getOwnPropertyDescriptor(args, '__proto__')!.value);
    const own = ownArguments(args);
    expect(own).not.toBe(args);
    expect(Object.getPrototypeOf(own)).toBe(Object.prototype);
    expect((own as { admin?: boolean }).admin).toBeUndefined();
    expect(Object.keys(own)).toEqual(['__proto__', 'n']);
    expect(Object.isFrozen(Object.getOwnPropertyDescriptor(own, '__proto__')!.value)).toBe(false);
  });
});
