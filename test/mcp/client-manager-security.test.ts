import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MusterError } from '../../src/index.js';
import { McpClientManager } from '../../src/mcp/mcp-entry.js';
import type { McpEvent, McpServerConfig } from '../../src/mcp/mcp-entry.js';
import { everythingStdioConfig, startEverythingHttp } from '../support/mcp-fixtures.js';
import type { EverythingHttp } from '../support/mcp-fixtures.js';
import { startLoopback } from './transports/loopback-servers.js';
import type { Loopback } from './transports/loopback-servers.js';

// The transport security matrix of SPEC 7.2 against the standalone McpClientManager (the
// same rules as agent.mcp): refused declarations, redirects, response bounds, allow-lists,
// and secrets that never show.

const refused = (servers: Record<string, McpServerConfig>, options = {}) => {
  try {
    new McpClientManager(servers, { strictConfig: true, ...options });
  } catch (err) {
    return err;
  }
  return undefined;
};

describe('McpClientManager transport security', () => {
  it.each([
    ['plain http to a remote host', { type: 'http', url: 'http://example.com/mcp' }],
    ['credentials in the URL', { type: 'http', url: 'https://user:pw-canary@example.com/mcp' }],
    ['a fragment', { type: 'http', url: 'https://example.com/mcp#x' }],
    [
      'a reserved header',
      { type: 'http', url: 'https://example.com/mcp', headers: { 'Mcp-Session-Id': 'x' } },
    ],
    ['sse without mcp.transports', { type: 'sse', url: 'https://example.com/sse' }],
  ] as [string, McpServerConfig][])('refuses %s at construction', (_label, config) => {
    const err = refused({ remote: config });
    expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
    expect(String((err as Error).message)).not.toContain('pw-canary');
  });

  it('refuses sampling by an agent it does not have', () => {
    const err = refused({}, { handlers: { sampling: 'agent' } });
    expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
  });

  it('disables servers outside mcp.allowedServers, without starting them', async () => {
    const m = new McpClientManager(
      { everything: everythingStdioConfig() },
      { strictConfig: true, allowedServers: ['other'] },
    );
    try {
      expect(await m.connectAll()).toMatchObject([{ name: 'everything', status: 'disabled' }]);
    } finally {
      await m.close();
    }
  });

  it('denies a connection the policy does not allow', async () => {
    const m = new McpClientManager(
      { everything: everythingStdioConfig() },
      { strictConfig: true, policy: { default: 'deny' } },
    );
    try {
      const [summary] = await m.connectAll();
      expect(summary).toMatchObject({ status: 'disabled', error: { code: 'TOOL_DENIED' } });
    } finally {
      await m.close();
    }
  });

  describe('over loopback HTTP', () => {
    let redirecting: Loopback;
    let elsewhere: Loopback;
    let http: EverythingHttp;
    beforeAll(async () => {
      elsewhere = await startLoopback((_req, res) => void res.writeHead(200).end('{}'));
      redirecting = await startLoopback(
        (_req, res) => void res.writeHead(302, { location: `${elsewhere.origin}/mcp` }).end(),
      );
      http = await startEverythingHttp();
    });
    afterAll(async () => {
      await redirecting?.close();
      await elsewhere?.close();
      await http?.close();
    });

    it('never follows a redirect', async () => {
      const m = new McpClientManager(
        { r: { type: 'http', url: `${redirecting.origin}/mcp` } },
        { strictConfig: true, protocol: { mode: 'legacy' } },
      );
      try {
        const [summary] = await m.connectAll();
        expect(summary).toMatchObject({
          status: 'failed',
          error: { code: 'MCP_CONNECTION_FAILED' },
        });
        expect(summary!.error!.message).toContain('redirect');
        expect(elsewhere.requests).toEqual([]);
      } finally {
        await m.close();
      }
    });

    it('bounds response bytes before parsing', async () => {
      const m = new McpClientManager(
        { everything: { type: 'http', url: http.url } },
        { strictConfig: true, maxResponseBytes: 1024 },
      );
      try {
        const [summary] = await m.connectAll();
        expect(summary!.status).toBe('failed');
      } finally {
        await m.close();
      }
    });

    it('keeps header secrets out of statuses, errors and events', async () => {
      const events: McpEvent[] = [];
      const m = new McpClientManager(
        { everything: { type: 'http', url: http.url, headers: { 'X-Api-Key': 'hdr-canary-31' } } },
        { strictConfig: true, onEvent: (e) => events.push(e) },
      );
      try {
        await m.connectAll();
        await m.ping('everything');
        await m
          .readResource('everything', 'demo://resource/nope')
          .catch((e: Error) => events.push({ message: e.message } as never));
        const text = JSON.stringify([events, m.list(), m.getConnection('everything')]);
        expect(text).not.toContain('hdr-canary-31');
      } finally {
        await m.close();
      }
    });
  });
});
