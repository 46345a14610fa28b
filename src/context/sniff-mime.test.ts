import { describe, expect, it } from 'vitest';
import { JSON_MIME_TYPE, sniffTextMimeType, TEXT_MIME_TYPE } from './sniff-mime.js';

describe('sniffTextMimeType', () => {
  it.each([
    ['an object', '{"a":1}'],
    ['an array', '[1,2,3]'],
    ['an empty object', '{}'],
    ['an empty array', '[]'],
    ['leading and trailing JSON whitespace', ' \t\r\n{"a": [1]}\n\r\t '],
    ['a pretty-printed array', '[\n  {"i": 0},\n  {"i": 1}\n]\n'],
    // no parse: only the first and last characters count
    ['braces around text that does not parse', '{ not json }'],
  ])('%s is application/json', (_what, text) => {
    expect(sniffTextMimeType(text)).toBe(JSON_MIME_TYPE);
  });

  it.each([
    ['empty text', ''],
    ['blank text', ' \n\t\r '],
    ['a lone brace', '{'],
    ['a lone brace in whitespace', '  [  '],
    ['a text that starts with { but ends otherwise', '{"a":1} and more'],
    ['a text that ends with } but starts otherwise', 'see {"a":1}'],
    ['mismatched brackets', '{"a":[1]]'],
    ['mismatched brackets the other way', '[{"a":1}}'],
    ['a JSON string', '"just a string"'],
    ['a JSON number', '42'],
    ['plain prose', 'hello world'],
    // other whitespace is not JSON whitespace, so it is not skipped
    ['a non-breaking space before the brace', '\u00a0{"a":1}'],
  ])('%s is text/plain', (_what, text) => {
    expect(sniffTextMimeType(text)).toBe(TEXT_MIME_TYPE);
  });
});
