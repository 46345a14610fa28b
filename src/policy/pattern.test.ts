import { describe, expect, it } from 'vitest';
import { compilePattern, compilePatterns } from './index.js';
import type { PolicySubject } from './index.js';

const tool = (name: string, server?: string, originalName?: string): PolicySubject => ({
  kind: 'tool',
  name,
  ...(server !== undefined ? { server } : {}),
  ...(originalName !== undefined ? { originalName } : {}),
});
const conn = (server: string): PolicySubject => ({ kind: 'connection', server });

describe('policy patterns', () => {
  it('matches exact names only exactly', () => {
    const m = compilePattern('read_file');
    expect(m(tool('read_file'))).toBe(true);
    expect(m(tool('read_files'))).toBe(false);
    expect(m(tool('xread_file'))).toBe(false);
  });

  it('matches a server glob for every tool of that server and no other', () => {
    const m = compilePattern('mcp__fs__*');
    expect(m(tool('mcp__fs__read', 'fs'))).toBe(true);
    expect(m(tool('mcp__fs__write', 'fs'))).toBe(true);
    expect(m(tool('mcp__fs2__read', 'fs2'))).toBe(false);
    expect(m(tool('fs_read'))).toBe(false);
  });

  it('treats mcp__srv as the whole server, matched by server identity, not by prefix', () => {
    const m = compilePattern('mcp__fs');
    expect(m(tool('mcp__fs__read', 'fs'))).toBe(true);
    expect(m(tool('mcp__fs__x_0123456789', 'fs', 'x.y'))).toBe(true);
    expect(m(tool('mcp__fsx__read', 'fsx'))).toBe(false);
    expect(m(tool('mcp__fs'))).toBe(false);
  });

  it('matches mcp__* on MCP tools and * on every tool, but never on connections', () => {
    expect(compilePattern('mcp__*')(tool('mcp__a__b', 'a'))).toBe(true);
    expect(compilePattern('mcp__*')(tool('host_tool'))).toBe(false);
    expect(compilePattern('*')(tool('host_tool'))).toBe(true);
    expect(compilePattern('*')(conn('fs'))).toBe(false);
    expect(compilePattern('mcp__*')(conn('fs'))).toBe(false);
  });

  it('matches connection capabilities only against connections', () => {
    expect(compilePattern('mcp_connect:fs')(conn('fs'))).toBe(true);
    expect(compilePattern('mcp_connect:fs')(conn('fs2'))).toBe(false);
    expect(compilePattern('mcp_connect:*')(conn('anything'))).toBe(true);
    expect(compilePattern('mcp_connect:*')(tool('mcp__fs__read', 'fs'))).toBe(false);
  });

  it('never reaches across servers whose names share a prefix or end in _', () => {
    const m = compilePattern('mcp__github__*');
    expect(m(tool('mcp__github__delete', 'github'))).toBe(true);
    expect(m(tool('mcp__github___delete_0123456789', 'github_', 'delete'))).toBe(false);
    expect(m(tool('mcp__github2__delete', 'github2'))).toBe(false);
    expect(
      compilePattern('mcp__github__delete')(
        tool('mcp__github___delete_0123456789', 'github_', 'delete'),
      ),
    ).toBe(false);
  });

  it('matches the original name of a tool that was given a safe name', () => {
    const m = compilePattern('mcp__docs__search*');
    expect(m(tool('mcp__docs__search_v2_abcdef0123', 'docs', 'search.v2'))).toBe(true);
    const exact = compilePattern('mcp__docs__get_page');
    expect(exact(tool('mcp__docs__get_page_0123456789', 'docs', 'get page'))).toBe(false);
  });

  it.each([
    ['dotted', 'search.v2'],
    ['slashed', 'repos/list'],
    ['spaced', 'get page'],
    ['long', 'a'.repeat(120)],
    ['non-ASCII', 'suche_über'],
  ])('writes the %s original name %j as mcp__srv__<original>', (_label, original) => {
    const safe = tool('mcp__srv__x_0123456789', 'srv', original);
    const m = compilePattern(`mcp__srv__${original}`);
    expect(m(safe)).toBe(true);
    expect(m(tool('mcp__srv__y_0123456789', 'srv', `${original}x`))).toBe(false);
    expect(m(tool('mcp__other__x_0123456789', 'other', original))).toBe(false);
  });

  it('reads \\* as a literal star and \\\\ as a backslash, never as a glob', () => {
    const star = compilePattern('mcp__srv__a\\*b');
    expect(star(tool('mcp__srv__a_b_0123456789', 'srv', 'a*b'))).toBe(true);
    expect(star(tool('mcp__srv__axyzb_0123456789', 'srv', 'axyzb'))).toBe(false);
    expect(star(tool('mcp__srv__ab_0123456789', 'srv', 'ab'))).toBe(false);
    expect(compilePattern('mcp__srv__\\*')(tool('mcp__srv__x_0123456789', 'srv', 'x'))).toBe(false);
    const slash = compilePattern('mcp__srv__a\\\\b*');
    expect(slash(tool('mcp__srv__x_0123456789', 'srv', 'a\\bc'))).toBe(true);
    expect(slash(tool('mcp__srv__x_0123456789', 'srv', 'abc'))).toBe(false);
  });

  it.each([
    '',
    'mcp__srv__a\\',
    'mcp__a.b__c',
    'a b',
    'mcp_connect:',
    'mcp_connect:a.b',
    'x/y',
    'a'.repeat(81),
    'mcp_connect:' + 'a'.repeat(25),
  ])('rejects the invalid pattern %j with INVALID_CONFIGURATION', (p) => {
    expect(() => compilePattern(p)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('names the option in errors of a list, and matches when any pattern does', () => {
    expect(() => compilePatterns(['ok', 'bad pattern'], 'policy.allow')).toThrow(/policy\.allow/);
    const m = compilePatterns(['a', 'b*'], 'policy.allow');
    expect(m(tool('a'))).toBe(true);
    expect(m(tool('bcd'))).toBe(true);
    expect(m(tool('c'))).toBe(false);
    expect(compilePatterns(undefined, 'x')(tool('a'))).toBe(false);
  });
});
