import { afterAll, beforeAll, expect, it } from 'vitest';
import { declare } from '../../src/mcp/config/config-sources.js';
import type { McpEvent } from '../../src/mcp/contracts/mcp-events.js';
import { McpManager } from '../../src/mcp/operations/mcp-manager.js';
import type { ExecutorRunContext } from '../../src/tools/index.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { EventLog } from './reconnect-events.js';

// A background reconnect of an OAuth server (against a real authorization server and a
// protected MCP server) reuses the server's OAuth session: no new token request.

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld({
    clients: [
      {
        client_id: 'bot',
        client_secret: 'bot-secret-canary-3c1d',
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
  });
});
afterAll(() => world?.close());

const context: ExecutorRunContext = {
  sessionId: 's',
  runId: 'r',
  signal: new AbortController().signal,
  emit: () => undefined,
  authorize: async () => ({ decision: 'allow' }) as never,
};

it('a reconnect keeps the OAuth session and its token', async () => {
  const log = new EventLog();
  const manager = new McpManager(
    [declare('w', { type: 'http', url: world.mcpUrl }, 'options', 'test')],
    {
      protocol: { mode: 'legacy' },
      reconnect: { enabled: true, initialDelayMs: 20, maxDelayMs: 100 },
      oauth: {
        w: {
          serverUrl: world.mcpUrl,
          allowedOrigins: [world.issuer],
          grant: 'client_credentials',
          clientId: 'bot',
          clientSecret: 'bot-secret-canary-3c1d',
          scope: 'mcp:read',
          expectedIssuer: world.issuer,
        },
      },
    },
    (e: McpEvent) => log.push(e),
  );
  try {
    await manager.prepare(context);
    const entry = manager.registry.get('w')!;
    expect(entry.status).toBe('connected');
    const session = entry.oauth;
    const tokens = world.counters().tokenRequests.client_credentials ?? 0;
    expect(tokens).toBeGreaterThan(0);

    // the connection is found gone (as a failed health check would find it)
    const back = log.status('w', 'connected');
    manager.connector.loss.lost(entry, entry.connection!);
    expect(entry.status).toBe('reconnecting');
    await back;

    expect(entry.oauth).toBe(session);
    const result = await manager.runner.callTool('w', 'whoami', {}, { signal: context.signal });
    expect((result.structuredContent as { client_id?: string }).client_id).toBe('bot');
    expect(world.counters().tokenRequests.client_credentials ?? 0).toBe(tokens);
    expect(log.statuses('w').slice(-2)).toEqual(['reconnecting', 'connected']);
  } finally {
    await manager.close();
  }
});
