import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { characterBoundaryAtOrBefore, utf8Prefix } from './utf8.js';

/** The plain definition: encode everything, cut on a character boundary. */
function reference(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  return buf.subarray(0, characterBoundaryAtOrBefore(buf, maxBytes)).toString('utf8');
}

describe('utf8Prefix', () => {
  it('equals encoding the whole text and cutting it on a character boundary', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 64 }), fc.nat(80), (text, maxBytes) => {
        expect(utf8Prefix(text, maxBytes)).toBe(reference(text, maxBytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('never cuts a surrogate pair, a multi-byte character or past the limit', () => {
    expect(utf8Prefix('a🙂b', 4)).toBe('a');
    expect(utf8Prefix('a🙂b', 5)).toBe('a🙂');
    expect(utf8Prefix('🙂🙂', 1)).toBe('');
    expect(utf8Prefix('ééé', 3)).toBe('é');
    expect(utf8Prefix('abc', 3)).toBe('abc');
    expect(utf8Prefix('', 0)).toBe('');
  });
});
