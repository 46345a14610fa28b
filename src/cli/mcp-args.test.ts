import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import { parseEnv, parseHeaders, parseToolArgs, scopesOf } from './mcp-args.js';
import { detectIndent } from './mcp-config-edit.js';

describe('muster mcp argument parsing', () => {
  it('parses --arg values as JSON when they parse, else as text, over --args', () => {
    expect(
      parseToolArgs('{"a":1,"b":"x"}', ['b=2', 'c=true', 'd=hello', 'e={"k":[1]}', 'f=a=b']),
    ).toEqual({ a: 1, b: 2, c: true, d: 'hello', e: { k: [1] }, f: 'a=b' });
    expect(parseToolArgs(undefined, [])).toEqual({});
  });

  it.each([
    [() => parseToolArgs('[1]', []), 'args'],
    [() => parseToolArgs('{', []), 'args'],
    [() => parseToolArgs(undefined, ['=1']), 'arg'],
    [() => parseEnv(['NOVALUE']), 'env'],
    [() => parseHeaders(['secret-without-colon']), 'headers'],
    [() => scopesOf('global'), 'scope'],
  ])('refuses bad input with INVALID_CONFIGURATION (%#)', (fn, field) => {
    let caught: unknown;
    try {
      fn();
    } catch (err) {
      caught = err;
    }
    expect(MusterError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { field } });
    expect((caught as Error).message).not.toContain('secret');
  });

  it('splits env at the first = and headers at the first colon', () => {
    expect(parseEnv(['A=b=c', 'E='])).toEqual({ A: 'b=c', E: '' });
    expect(parseHeaders(['Authorization: Bearer a:b', 'X-K:v'])).toEqual({
      Authorization: 'Bearer a:b',
      'X-K': 'v',
    });
    expect(parseEnv([])).toBeUndefined();
  });

  it('detects a file indentation, two spaces by default', () => {
    expect(detectIndent('{\n    "a": 1\n}')).toBe('    ');
    expect(detectIndent('{\n\t"a": 1\n}')).toBe('\t');
    expect(detectIndent('{"a":1}')).toBe('  ');
  });
});
