import { describe, expect, it } from 'vitest';
import { McpError } from '../errors/index.js';
import { SecretRegistry } from '../util/index.js';
import { checkCallback } from './oauth-callback.js';

const redirectUri = new URL('http://127.0.0.1:4000/callback');
const state = 'state-canary-0123456789abcdef';

function expectation() {
  return { server: 'docs', redirectUri, state, secrets: new SecretRegistry() };
}

function reasonOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    expect(McpError.isInstance(err)).toBe(true);
    const e = err as McpError;
    expect(e.code).toBe('MCP_AUTH_REQUIRED');
    // no part of the callback may be echoed: not the code, not the state
    expect(e.message).not.toContain('code-canary');
    expect(e.message).not.toContain(state);
    return e.details.reason;
  }
  throw new Error('expected a refusal');
}

describe('checkCallback', () => {
  it('accepts the callback of this login and returns its code and iss', () => {
    const url = `${redirectUri.href}?code=code-canary-1&state=${state}&iss=${encodeURIComponent('http://127.0.0.1:5000')}`;
    expect(checkCallback(url, expectation())).toEqual({
      code: 'code-canary-1',
      iss: 'http://127.0.0.1:5000',
    });
  });

  it('refuses a wrong state', () => {
    const url = `${redirectUri.href}?code=code-canary-1&state=other`;
    expect(reasonOf(() => checkCallback(url, expectation()))).toBe('state-mismatch');
  });

  it('refuses a missing state', () => {
    const url = `${redirectUri.href}?code=code-canary-1`;
    expect(reasonOf(() => checkCallback(url, expectation()))).toBe('state-mismatch');
  });

  it('refuses duplicated parameters, whichever is repeated', () => {
    for (const query of [
      `code=code-canary-1&code=code-canary-2&state=${state}`,
      `code=code-canary-1&state=${state}&state=${state}`,
      `code=code-canary-1&state=${state}&iss=a&iss=b`,
    ]) {
      expect(reasonOf(() => checkCallback(`${redirectUri.href}?${query}`, expectation()))).toBe(
        'duplicate-parameter',
      );
    }
  });

  it('refuses a callback to another destination (origin or path)', () => {
    for (const base of ['http://127.0.0.1:4001/callback', 'http://127.0.0.1:4000/other']) {
      const url = `${base}?code=code-canary-1&state=${state}`;
      expect(reasonOf(() => checkCallback(url, expectation()))).toBe('wrong-destination');
    }
  });

  it('reports an error answer with its text sanitized', () => {
    const url = `${redirectUri.href}?error=access_denied&error_description=${encodeURIComponent('go to https://evil.example/x now\u0007')}&state=${state}`;
    let message = '';
    try {
      checkCallback(url, expectation());
    } catch (err) {
      message = (err as Error).message;
      expect((err as McpError).details.reason).toBe('authorization-denied');
    }
    expect(message).toContain('access_denied');
    expect(message).not.toContain('evil.example');
    expect(message).not.toContain('\u0007');
  });

  it('refuses a callback without a code, and text that is not a URL', () => {
    expect(reasonOf(() => checkCallback(`${redirectUri.href}?state=${state}`, expectation()))).toBe(
      'invalid-callback',
    );
    expect(reasonOf(() => checkCallback('not a url', expectation()))).toBe('invalid-callback');
  });

  it('adds the callback and its code to the secrets to redact', () => {
    const e = expectation();
    checkCallback(`${redirectUri.href}?code=code-canary-1234&state=${state}`, e);
    expect(e.secrets.redact('x code-canary-1234 y')).not.toContain('code-canary-1234');
  });
});
