import { describe, expect, it } from 'vitest';
import { MusterError } from '../../errors/index.js';
import { parseConfigFile, parseMcpOptions, parseServerConfig } from './config-schema.js';
import { createSdkMcpServer } from '../servers/sdk-server.js';

function refusal(fn: () => unknown): MusterError {
  try {
    fn();
  } catch (err) {
    expect(MusterError.isInstance(err)).toBe(true);
    expect((err as MusterError).code).toBe('INVALID_CONFIGURATION');
    return err as MusterError;
  }
  throw new Error('expected INVALID_CONFIGURATION');
}

const FILE = '/work/.muster/mcp.json';
const server = createSdkMcpServer({ name: 'crm' });
const provider = { tokens: () => undefined, clientInformation: () => undefined };
const store = { get: () => 0, set: () => 0, delete: () => 0, update: () => 0 };

describe('server declarations', () => {
  it.each([
    ['stdio', { command: 'node', args: ['s.mjs'], env: { A: 'b' }, cwd: '/tmp', maxBufferSize: 1 }],
    ['typed stdio', { type: 'stdio', command: 'node', connectTimeoutMs: 2_147_483_647 }],
    [
      'http',
      { type: 'http', url: 'https://e.com/mcp', headers: { X: 'y' }, timeoutMs: 86_400_000 },
    ],
    [
      'http with bearer',
      { type: 'http', url: 'https://e.com/mcp', auth: { type: 'bearer', token: 't' } },
    ],
    [
      'http with a provider',
      { type: 'http', url: 'https://e.com/mcp', auth: { type: 'provider', provider } },
    ],
    ['sse', { type: 'sse', url: 'https://e.com/sse', headers: {}, connectTimeoutMs: 1 }],
    ['sdk', { type: 'sdk', server }],
    ['sdk with fastPath', { type: 'sdk', server, fastPath: false }],
  ])('accepts %s from the constructor', (_what, config) => {
    expect(parseServerConfig('s', config, 'options', 'createAgent({ mcpServers })')).toBe(config);
  });

  it.each([
    [{ command: 'node', extra: 1, more: 2 }, 'unknown key(s) extra, more (known: type, command,'],
    [{ command: '' }, 'command: must be a non-empty string'],
    [{}, 'command: is missing (must be a non-empty string)'],
    [{ command: 'node', args: ['a', 2] }, 'args[1]: must be a string'],
    [{ command: 'node', args: 'a' }, 'args: must be an array'],
    [{ command: 'node', env: { A: 1 } }, 'env.A: must be a string'],
    [{ command: 'node', env: { 'my var': 1 } }, 'env."my var": must be a string'],
    [{ command: 'node', maxBufferSize: 1.5 }, 'maxBufferSize: must be a whole number >= 1'],
    [
      { command: 'node', connectTimeoutMs: 2_147_483_648 },
      'connectTimeoutMs: must be a whole number from 1 to 2147483647',
    ],
    [{ type: 'http', url: '' }, 'url: must be a non-empty string'],
    [
      { type: 'http', url: 'https://e.com', timeoutMs: 0 },
      'timeoutMs: must be a whole number from 1 to 86400000',
    ],
    [
      { type: 'http', url: 'https://e.com', auth: { type: 'basic' } },
      "auth: must be an object with type 'bearer' or 'provider'",
    ],
    [
      { type: 'http', url: 'https://e.com', auth: { type: 'bearer', token: '' } },
      'auth.token: must be a non-empty string',
    ],
    [
      { type: 'http', url: 'https://e.com', auth: { type: 'provider', provider: 1 } },
      'auth.provider: must be an AuthProvider or OAuthClientProvider',
    ],
    [{ type: 'sse', url: 'https://e.com', timeoutMs: 1 }, 'unknown key(s) timeoutMs'],
    [{ type: 'sdk', server: {} }, 'server: must be a server made by createSdkMcpServer()'],
    [{ type: 'sdk', server, fastPath: 'yes' }, 'fastPath: must be true or false'],
  ])('refuses %j, naming the place, the server and the key', (config, says) => {
    const err = refusal(() =>
      parseServerConfig('srv', config, 'options', 'createAgent({ mcpServers })'),
    );
    expect(err.message).toContain("createAgent({ mcpServers }): server 'srv' is invalid: ");
    expect(err.message).toContain(says);
    expect(err.details).toMatchObject({ server: 'srv', source: 'options' });
  });

  it('names the first bad key in details.field and lists at most five problems', () => {
    const err = refusal(() =>
      parseServerConfig('srv', { command: '', args: [1, 2, 3, 4, 5] }, 'options', 'here'),
    );
    expect(err.details).toMatchObject({ field: 'command' });
    expect(err.message).toContain('args[3]: must be a string; and 1 more.');
  });

  it('never quotes a value, only keys', () => {
    const err = refusal(() =>
      parseServerConfig(
        'srv',
        {
          type: 'http',
          url: 'https://e.com',
          auth: { type: 'bearer', token: 5, secret: 's3cr3t' },
        },
        'options',
        'here',
      ),
    );
    expect(err.message).toContain('unknown key(s) secret');
    expect(err.message).not.toContain('s3cr3t');
  });

  it('files may not hold credentials or in-process servers; an unknown type says which are known', () => {
    const auth = { type: 'http', url: 'https://e.com', auth: { type: 'bearer', token: 't0ken' } };
    const err = refusal(() => parseServerConfig('srv', auth, 'project', FILE));
    expect(err.message).toContain(`${FILE}: server 'srv' is invalid: (root): unknown key(s) auth`);
    expect(err.message).not.toContain('t0ken');
    expect(err.details).toMatchObject({ server: 'srv', source: 'project' });
    expect(
      refusal(() => parseServerConfig('srv', { type: 'sdk', server }, 'user', FILE)).message,
    ).toContain("unknown type \"sdk\"; use 'stdio', 'http' or 'sse'");
    expect(
      refusal(() => parseServerConfig('srv', { type: 'ftp' }, 'options', 'here')).message,
    ).toContain("use 'stdio', 'http', 'sse' or 'sdk'");
  });

  it('perPrincipal: false is leaving it out, on any server; true where it cannot apply is refused', () => {
    const off = [
      { command: 'node', perPrincipal: false },
      { type: 'sse', url: 'https://e.com/sse', perPrincipal: false },
      { type: 'http', url: 'https://e.com/mcp', perPrincipal: false },
    ];
    for (const config of off)
      expect(parseServerConfig('srv', config, 'options', 'here')).toBe(config);
    const inFile = { type: 'http', url: 'https://e.com/mcp', perPrincipal: false };
    expect(parseServerConfig('srv', inFile, 'project', FILE)).toBe(inFile);
    const on = refusal(() =>
      parseServerConfig('srv', { command: 'node', perPrincipal: true }, 'options', 'here'),
    );
    expect(on.message).toContain("server 'srv' sets perPrincipal: true but is a stdio server");
    expect(on.details).toMatchObject({ field: 'perPrincipal' });
  });

  it('refuses a declaration that is not an object, and a bad server name', () => {
    expect(refusal(() => parseServerConfig('srv', 'node', 'options', 'here')).message).toContain(
      '(root): must be an object',
    );
    expect(refusal(() => parseServerConfig('srv', null, 'options', 'here')).message).toContain(
      '(root): must be an object',
    );
    expect(
      refusal(() => parseServerConfig('a b', { command: 'x' }, 'options', 'here')).message,
    ).toContain('server name');
  });
});

describe('mcp options', () => {
  it('accepts every option', () => {
    const options = {
      strictConfig: true,
      allowedServers: ['a'],
      transports: ['stdio', 'http', 'sse', 'sdk'],
      startupConcurrency: 64,
      protocol: { mode: { pin: '2025-06-18' }, probeTimeoutMs: 1, probeMaxRetries: 10 },
      names: 'strict',
      maxResponseBytes: 1024,
      sandbox: { command: 'bwrap', args: ['--'] },
      archiveThresholdBytes: 256,
      operation: { timeoutMs: 1, maxTotalTimeoutMs: 2 },
      reconnect: {
        enabled: true,
        maxAttempts: 100,
        initialDelayMs: 0,
        maxDelayMs: 0,
        jitterRatio: 0.5,
        healthCheckIntervalMs: 100,
        healthCheckTimeoutMs: 1,
      },
      handlers: {
        roots: [{ uri: 'file:///tmp', name: 'tmp' }],
        sampling: 'agent',
        elicitation: () => undefined,
        logging: () => undefined,
      },
      exposeResources: false,
      samplingMaxTokens: 1_000_000,
      handlerTimeoutMs: 1,
      oauth: {
        a: {
          serverUrl: 'https://a.com/mcp',
          allowedOrigins: ['https://auth.a.com'],
          provider,
          store,
          authorize: () => undefined,
          redirectUri: 'http://127.0.0.1/cb',
          clientId: 'id',
          clientSecret: 'secret',
          clientMetadataUrl: 'https://a.com/client.json',
          scope: 'read',
          grant: 'client_credentials',
          privateKeyJwk: { kty: 'EC', alg: 'ES256', crv: 'P-256' },
          expectedIssuer: 'https://auth.a.com',
          stepUp: true,
          timeoutMs: 600_000,
        },
        b: { serverUrl: 'https://b.com/mcp', allowedOrigins: [], store: 'keychain' },
      },
      tasks: { minPollIntervalMs: 1, maxPollIntervalMs: 86_400_000, parkAfterMs: 30_000 },
    };
    expect(parseMcpOptions(options)).toBe(options);
    expect(
      parseMcpOptions({
        protocol: { mode: 'legacy' },
        handlers: { roots: () => [], sampling: () => 0 },
      }),
    ).toBeTruthy();
    expect(parseMcpOptions(undefined)).toEqual({});
  });

  it.each([
    [[], '(root): must be an object'],
    [{ unknown: true }, '(root): unknown key(s) unknown'],
    [{ startupConcurrency: 0 }, 'startupConcurrency: must be a whole number from 1 to 64'],
    [
      { transports: ['stdio', 'ws'] },
      "transports[1]: must be one of 'stdio', 'http', 'sse', 'sdk'",
    ],
    [
      { protocol: { mode: 'modern' } },
      "protocol.mode: must be 'auto', 'legacy' or { pin: 'YYYY-MM-DD' }",
    ],
    [{ protocol: { mode: { pin: '2025' } } }, 'protocol.mode.pin: must be a YYYY-MM-DD version'],
    [{ protocol: {} }, 'protocol.mode: is missing'],
    [{ sandbox: { command: '  ' } }, 'sandbox.command: must be a non-blank string'],
    [
      { reconnect: { jitterRatio: Number.NaN } },
      'reconnect.jitterRatio: must be a number from 0 to 1',
    ],
    [
      { reconnect: { healthCheckIntervalMs: 99 } },
      'reconnect.healthCheckIntervalMs: must be a whole number from 100',
    ],
    [
      { handlers: { roots: [{ uri: 'https://x' }] } },
      "handlers.roots[0].uri: must be a 'file://' URI",
    ],
    [
      { handlers: { roots: 'file:///x' } },
      "handlers.roots: must be an array of { uri: 'file://...' } or a function",
    ],
    [{ handlers: { sampling: 'model' } }, "handlers.sampling: must be 'agent' or a function"],
    [
      { oauth: { a: { serverUrl: 'https://a.com' } } },
      'oauth.a.allowedOrigins: is missing (must be an array)',
    ],
    [
      { oauth: { a: { serverUrl: 'x', allowedOrigins: [], store: 'disk' } } },
      "oauth.a.store: must be 'memory', 'file', 'keychain' or a TokenStore",
    ],
    [
      { oauth: { a: { serverUrl: 'x', allowedOrigins: [], provider: {} } } },
      'oauth.a.provider: must be an OAuthClientProvider',
    ],
    [
      { oauth: { a: { serverUrl: 'x', allowedOrigins: [], privateKeyJwk: {} } } },
      'oauth.a.privateKeyJwk.kty: is missing',
    ],
    [{ tasks: { minPollIntervalMs: 0 } }, 'tasks.minPollIntervalMs: must be a whole number from 1'],
    [
      { tasks: { maxPollIntervalMs: 1.5 } },
      'tasks.maxPollIntervalMs: must be a whole number from 1',
    ],
    [{ tasks: { parkAfter: 1 } }, 'tasks: unknown key(s) parkAfter'],
    [{ tasks: { parkAfterMs: 0 } }, 'tasks.parkAfterMs: must be a whole number from 1'],
    [{ tasks: { parkAfterMs: '30s' } }, 'tasks.parkAfterMs: must be a whole number from 1'],
    [
      { tasks: { minPollIntervalMs: 6_000 } },
      'mcp.tasks.minPollIntervalMs (6000) is over mcp.tasks.maxPollIntervalMs (5000)',
    ],
  ])('refuses %j', (options, says) => {
    const err = refusal(() => parseMcpOptions(options));
    expect(err.message).toContain(`Invalid mcp options: ${says}`);
  });
});

describe('config files', () => {
  it('must be { mcpServers: { ... } }', () => {
    expect(parseConfigFile({ mcpServers: { a: {} } }, FILE)).toEqual({ a: {} });
    for (const [value, says] of [
      [
        { servers: {} },
        '(root): unknown key(s) servers (known: mcpServers); mcpServers: is missing',
      ],
      [{ mcpServers: [] }, 'mcpServers: must be an object of { name: declaration }'],
      ['text', '(root): must be an object'],
    ] as const) {
      const err = refusal(() => parseConfigFile(value, `MCP config file ${FILE}`));
      expect(err.message).toContain(`MCP config file ${FILE}: ${says}`);
      expect(err.message).toContain('The file must be { "mcpServers"');
    }
  });
});
