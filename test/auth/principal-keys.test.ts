import { describe, expect, it } from 'vitest';
import { MusterError } from '../../src/errors/index.js';
import {
  MAX_PRINCIPAL_LENGTH,
  checkPrincipal,
  memoryTokenStore,
  oauthNamespace,
} from '../../src/auth/index.js';
import { PRINCIPAL_SCENARIO_EXPECTED, principalScenario } from '../support/principal-keys.js';

const URL_ = 'https://w.example/mcp';

describe('checkPrincipal', () => {
  it('takes 1 to 256 characters (code points) without control characters, unchanged', () => {
    for (const id of ['a', 'alice:w', 'ålice@example.com', '🙂'.repeat(MAX_PRINCIPAL_LENGTH)])
      expect(checkPrincipal(id)).toBe(id);
  });

  it('refuses empty, oversized, control-character, lone-surrogate and non-string ids, typed', () => {
    const bad: unknown[] = [
      '',
      'x'.repeat(MAX_PRINCIPAL_LENGTH + 1),
      'alice\nbob',
      'tab\there',
      'nul\u0000',
      'del\u007F',
      'c1\u0085',
      'lone\uD800',
      undefined,
      null,
      42,
    ];
    for (const id of bad) {
      const err: unknown = (() => {
        try {
          checkPrincipal(id);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(MusterError.isInstance(err), String(id)).toBe(true);
      expect((err as MusterError).code).toBe('INVALID_CONFIGURATION');
      if (typeof id === 'string' && id !== '')
        expect((err as MusterError).message).not.toContain(id);
    }
  });
});

describe('oauthNamespace with principals', () => {
  it('keeps the old format for the local user (no principal)', () => {
    expect(oauthNamespace('w', URL_, 'ada')).toBe('muster:ada:w:https://w.example/mcp');
  });

  it('gives principals their own, percent-encoded segment behind a prefix the old keys never have', () => {
    expect(oauthNamespace('w', URL_, 'ada', 'alice:w')).toBe(
      'muster+p:alice%3Aw:ada:w:https://w.example/mcp',
    );
    expect(oauthNamespace('w', URL_, 'ada', 'alice')).toBe(
      'muster+p:alice:ada:w:https://w.example/mcp',
    );
  });

  it('never gives two principals, or a principal and the local user, one key', () => {
    // pairs a naive join would merge: a colon moved between the principal and the rest
    const cases: Array<[string | undefined, string, string]> = [
      [undefined, 'ada', 'w'],
      ['alice:w', 'ada', 'w'],
      ['alice', 'ada', 'w'],
      ['alice', 'w:ada', 'w'],
      ['alice:w:ada', 'x', 'w'],
      ['alice%3Aw', 'ada', 'w'],
      ['ada', 'ada', 'w'],
      ['muster', 'ada', 'w'],
      ['+p', 'ada', 'w'],
      ['\uFFFD', 'ada', 'w'],
    ];
    const keys = cases.map(([p, user, server]) => oauthNamespace(server, URL_, user, p));
    expect(new Set(keys).size).toBe(keys.length);
    for (const [i, key] of keys.entries())
      expect(key.startsWith('muster+p:')).toBe(cases[i]![0] !== undefined);
  });

  it('refuses a bad principal before making a key', () => {
    expect(() => oauthNamespace('w', URL_, 'ada', '')).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }) as Error,
    );
  });

  it('on the memory store: alice:w and alice never share a key, old keys serve the local user', async () => {
    expect(await principalScenario(memoryTokenStore())).toEqual(PRINCIPAL_SCENARIO_EXPECTED);
  });
});
