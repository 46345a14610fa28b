import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { McpError, MusterError } from '../../../src/errors/index.js';
import {
  checkHeaders,
  checkServerUrl,
  createTransport,
  validateRemoteConfig,
} from '../../../src/mcp/transports/index.js';
import { ctx, newClient, rejection, thrown } from './helpers.js';
import type { RemoteConfig } from './helpers.js';
import { startLoopback } from './loopback-servers.js';
import type { Loopback } from './loopback-servers.js';

describe('checkServerUrl', () => {
  const refused: Array<[string, string]> = [
    ['ftp://host/mcp', 'unsupported scheme'],
    ['http://example.com/mcp', 'non-loopback'],
    ['http://10.0.0.1/mcp', 'non-loopback'],
    ['http://localhost.example.com/mcp', 'non-loopback'],
    ['http://127.5.6.7:8080/mcp', 'non-loopback'],
    ['https://user:pass@host/mcp', 'credentials'],
    ['https://user@host/mcp', 'credentials'],
    ['https://host/mcp#frag', 'fragment'],
    ['https://host/mcp#', 'fragment'],
    ['not a url', 'not a valid absolute URL'],
    ['/relative/mcp', 'not a valid absolute URL'],
  ];
  it.each(refused)('refuses %s', (url, reason) => {
    const error = thrown(() => checkServerUrl('srv', url));
    expect(MusterError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { server: 'srv' } });
    expect((error as Error).message).toContain(reason);
    expect((error as Error).message).toContain('"srv"');
  });

  it('never echoes credentials', () => {
    const message = (thrown(() => checkServerUrl('s', 'https://user:pass@host/mcp')) as Error)
      .message;
    expect(message).not.toContain('pass');
    expect(message).not.toContain('user');
    expect(message).not.toContain('host/mcp');
  });

  it('echoes only origin and path of other URLs', () => {
    const message = (
      thrown(() => checkServerUrl('s', 'http://example.com/mcp?key=secret#x')) as Error
    ).message;
    expect(message).toContain('http://example.com/mcp');
    expect(message).not.toContain('secret');
  });

  const accepted: Array<[string, string]> = [
    ['https://host/mcp', 'https://host/mcp'],
    ['http://localhost:1/mcp', 'http://localhost:1/mcp'],
    ['http://127.0.0.1:1/mcp', 'http://127.0.0.1:1/mcp'],
    ['http://[::1]:1/mcp', 'http://[::1]:1/mcp'],
    ['https://host/mcp?x=1', 'https://host/mcp?x=1'],
  ];
  it.each(accepted)('accepts %s', (url, href) => {
    expect(checkServerUrl('srv', url).href).toBe(href);
  });
});

describe('checkHeaders', () => {
  const reserved = [
    'Mcp-Session-Id',
    'MCP-PROTOCOL-VERSION',
    'Host',
    'Content-Length',
    'Transfer-Encoding',
    'CONNECTION',
    'Keep-Alive',
    'upgrade',
    'TE',
    'Trailer',
    'Last-Event-ID',
    'Content-Type',
    'ACCEPT',
  ];
  it.each(reserved)('refuses the reserved header %s', (name) => {
    const error = thrown(() => checkHeaders('srv', { 'X-Ok': 'v', [name]: 'secret-value' }));
    expect(error).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { server: 'srv', header: name },
    });
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).not.toContain('secret-value');
  });

  it.each([
    ['X-Bad', 'a\r\nInjected: 1'],
    ['X-Bad', 'line\nbreak'],
    ['X-Bad', 'nul\0'],
    ['Bad Name', 'value-secret'],
    ['Bad:Name', 'value-secret'],
    ['', 'value-secret'],
  ])('refuses invalid header %j', (name, value) => {
    const error = thrown(() => checkHeaders('srv', { [name]: value }));
    expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((error as Error).message).not.toContain(value);
  });

  it('accepts ordinary headers', () => {
    expect(() =>
      checkHeaders('srv', { 'X-Api-Key': 'k', Authorization: 'Bearer t' }),
    ).not.toThrow();
    expect(() => checkHeaders('srv', undefined)).not.toThrow();
  });
});

describe('validateRemoteConfig', () => {
  it('refuses auth together with an Authorization header, without printing either', () => {
    const error = thrown(() =>
      validateRemoteConfig('srv', {
        type: 'http',
        url: 'https://host/mcp',
        headers: { authorization: 'Bearer header-secret' },
        auth: { type: 'bearer', token: 'token-secret' },
      }),
    );
    expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION', details: { server: 'srv' } });
    expect((error as Error).message).not.toMatch(/header-secret|token-secret/);
  });

  it('refuses a token with a line break and a provider that is not one', () => {
    const url = 'https://host/mcp';
    const badToken = thrown(() =>
      validateRemoteConfig('s', { type: 'http', url, auth: { type: 'bearer', token: 'a\r\nb' } }),
    );
    expect(badToken).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    const badProvider = thrown(() =>
      validateRemoteConfig('s', { type: 'http', url, auth: { type: 'provider', provider: {} } }),
    );
    expect(badProvider).toMatchObject({ code: 'INVALID_CONFIGURATION' });
  });

  it('makes createTransport fail fast, before any I/O', () => {
    for (const config of [
      { type: 'http', url: 'http://example.com/mcp' },
      { type: 'sse', url: 'https://host/sse#' },
      { type: 'http', url: 'https://host/mcp', headers: { 'MCP-Session-Id': 'x' } },
    ] as RemoteConfig[]) {
      expect(thrown(() => createTransport(config, ctx('s')))).toMatchObject({
        code: 'INVALID_CONFIGURATION',
      });
    }
  });
});

describe('redirects are refused, never followed', () => {
  let server: Loopback;
  let elsewhere: Loopback;
  let status = 307;
  let target = '/final';

  beforeAll(async () => {
    elsewhere = await startLoopback((_req, res) => void res.writeHead(200).end('{}'));
    server = await startLoopback((req, res) => {
      if (req.url === '/final') res.writeHead(200).end('{}');
      else res.writeHead(status, { location: target }).end();
    });
  });
  afterAll(async () => {
    await server.close();
    await elsewhere.close();
  });

  const cases = [301, 302, 303, 307, 308].flatMap((code) => [
    [code, 'same-origin'],
    [code, 'other-origin'],
  ]) as Array<[number, 'same-origin' | 'other-origin']>;

  it.each(cases)('HTTP %i to %s: connect rejects with MCP_CONNECTION_FAILED', async (code, to) => {
    status = code;
    target = to === 'same-origin' ? '/final' : `${elsewhere.origin}/final`;
    server.requests.length = 0;
    elsewhere.requests.length = 0;
    const { transport } = createTransport({ type: 'http', url: `${server.origin}/mcp` }, ctx('r'));

    const error = await rejection(() => newClient().connect(transport));

    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: 'MCP_CONNECTION_FAILED', server: 'r' });
    expect((error as Error).message).toContain('redirect');
    expect(server.requests.map((r) => r.path)).toEqual(['/mcp']);
    expect(elsewhere.requests).toEqual([]);
  });

  it('in auto mode the client wraps the refusal: SdkError ERA_NEGOTIATION_FAILED, cause McpError', async () => {
    status = 302;
    target = `${elsewhere.origin}/final`;
    server.requests.length = 0;
    const { transport } = createTransport({ type: 'http', url: `${server.origin}/mcp` }, ctx('r'));

    const error = await rejection(() => newClient('auto').connect(transport));

    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(SdkErrorCode.EraNegotiationFailed);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(McpError);
    expect(cause).toMatchObject({ code: 'MCP_CONNECTION_FAILED', server: 'r' });
    expect(server.requests.every((r) => r.path === '/mcp')).toBe(true);
    expect(elsewhere.requests).toEqual([]);
  });

  it.each(['legacy', 'auto'] as const)(
    'the legacy SSE transport (%s mode) rejects with MCP_CONNECTION_FAILED',
    async (mode) => {
      status = 307;
      target = '/final';
      server.requests.length = 0;
      const { transport } = createTransport({ type: 'sse', url: `${server.origin}/sse` }, ctx('r'));
      // The event source would reconnect on a timer (3 s by default): fake timers let the
      // test run every timer due well past that instead of waiting for it.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      let error: unknown;
      try {
        error = await rejection(() => newClient(mode).connect(transport));
        await vi.advanceTimersByTimeAsync(10_000);
      } finally {
        vi.useRealTimers();
      }

      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: 'MCP_CONNECTION_FAILED' });
      // No reconnection loop: the event source was closed with the failed start. Every timer
      // due in the next 10 s has run, so a reconnect would be a local request away.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(server.requests.map((r) => r.path)).toEqual(['/sse']);
    },
  );
});
