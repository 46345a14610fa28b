import { describe, expect, it } from 'vitest';
import { MusterError } from '../errors/index.js';
import { checkOAuthOptions } from './oauth-config.js';
import type { McpOAuthServerOptions } from './oauth-options.js';

const url = 'https://mcp.example.com/mcp';
const facts = { type: 'http', url, staticAuth: false };
const base: McpOAuthServerOptions = {
  serverUrl: url,
  allowedOrigins: ['https://auth.example.com'],
  redirectUri: 'http://127.0.0.1:4000/callback',
};

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(MusterError.isInstance(err)).toBe(true);
    expect((err as MusterError).code).toBe('INVALID_CONFIGURATION');
    return (err as Error).message;
  }
  throw new Error('expected INVALID_CONFIGURATION');
}

describe('checkOAuthOptions', () => {
  it('accepts a complete entry and derives the trusted origins', () => {
    const checked = checkOAuthOptions('docs', facts, base);
    expect([...checked.origins]).toEqual(['https://mcp.example.com', 'https://auth.example.com']);
    expect(checked.grant).toBe('authorization_code');
    expect(checked.timeoutMs).toBe(180_000);
  });

  it('refuses a serverUrl that differs from the server url in any way', () => {
    for (const serverUrl of [
      `${url}/`,
      'https://mcp.example.com/MCP',
      'http://mcp.example.com/mcp',
    ]) {
      expect(refusal(() => checkOAuthOptions('docs', facts, { ...base, serverUrl }))).toContain(
        'serverUrl',
      );
    }
  });

  it('refuses OAuth together with a static Authorization', () => {
    expect(
      refusal(() => checkOAuthOptions('docs', { ...facts, staticAuth: true }, base)),
    ).toContain('static Authorization');
  });

  it('refuses OAuth on a server that is not http', () => {
    expect(
      refusal(() => checkOAuthOptions('docs', { type: 'stdio', staticAuth: false }, base)),
    ).toContain("type 'http'");
  });

  it('refuses insecure or non-origin allowedOrigins', () => {
    for (const origin of ['http://auth.example.com', 'https://auth.example.com/path', 'nope']) {
      refusal(() => checkOAuthOptions('docs', facts, { ...base, allowedOrigins: [origin] }));
    }
    expect(
      checkOAuthOptions('docs', facts, {
        ...base,
        allowedOrigins: ['http://127.0.0.1:9000'],
      }).origins.has('http://127.0.0.1:9000'),
    ).toBe(true);
  });

  it('bounds the login deadline to 1 ms .. 600 s', () => {
    refusal(() => checkOAuthOptions('docs', facts, { ...base, timeoutMs: 0 }));
    refusal(() => checkOAuthOptions('docs', facts, { ...base, timeoutMs: 600_001 }));
    expect(checkOAuthOptions('docs', facts, { ...base, timeoutMs: 1 }).timeoutMs).toBe(1);
  });

  it('needs a redirect URI for authorization_code, and credentials for client_credentials', () => {
    const { redirectUri: _omit, ...noRedirect } = base;
    expect(refusal(() => checkOAuthOptions('docs', facts, noRedirect))).toContain('redirectUri');
    refusal(() => checkOAuthOptions('docs', facts, { ...noRedirect, grant: 'client_credentials' }));
    refusal(() =>
      checkOAuthOptions('docs', facts, {
        ...noRedirect,
        grant: 'client_credentials',
        clientId: 'c',
        clientSecret: 's-secret-value',
        privateKeyJwk: { kty: 'EC' },
      }),
    );
    expect(
      checkOAuthOptions('docs', facts, {
        ...noRedirect,
        grant: 'client_credentials',
        clientId: 'c',
        clientSecret: 's-secret-value',
      }).grant,
    ).toBe('client_credentials');
  });

  it('never prints the client secret', () => {
    const message = refusal(() =>
      checkOAuthOptions('docs', facts, { ...base, clientSecret: 'secret-canary-42' }),
    );
    expect(message).not.toContain('secret-canary-42');
  });
});
