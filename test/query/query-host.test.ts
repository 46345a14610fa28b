/**
 * The query()-style host of docs/migrating.md (examples/migrating/query-host.ts) against real
 * parts: an in-process server, the features stdio fixture (a URL-mode elicitation followed by
 * notifications/elicitation/complete) and the loopback OAuth world (pull-mode sign-in through
 * mcpAuthenticate / mcpSubmitOAuthCallbackUrl), with a scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedModel } from '../../src/index.js';
import type { QueryMessage } from '../../src/query/index.js';
import { runQueryHost } from '../../examples/migrating/query-host.js';
import { startOAuthWorld } from '../fixtures/oauth/index.js';
import type { OAuthWorld } from '../fixtures/oauth/index.js';
import { stdioConfig } from '../support/mcp-fixtures.js';
import { REDIRECT_URI } from '../auth/oauth-support.js';

let world: OAuthWorld;
beforeAll(async () => {
  world = await startOAuthWorld();
});
afterAll(async () => {
  await world?.close();
});

const usage = (n: number) => ({ inputTokens: 10 * n, outputTokens: n, totalTokens: 11 * n });

const kind = (m: QueryMessage) => (m.type === 'system' ? `system:${m.subtype}` : m.type);

describe('the query() host of docs/migrating.md', () => {
  it('signs in, streams init, assistant, tool results, elicitation_complete and a success result', async () => {
    const before = world.counters();
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'mcp__crm__get_user_orders', arguments: { userId: 'user-123', status: 'paid' } },
        ],
        usage: usage(1),
      },
      { toolCalls: [{ name: 'mcp__link__ask-url', arguments: {} }], usage: usage(2) },
      { toolCalls: [{ name: 'mcp__analytics__whoami', arguments: {} }], usage: usage(3) },
      { text: 'User-123 has one paid order, o-1.', usage: usage(4) },
    ]);
    const shown: string[] = [];
    const browsed: string[] = [];
    const messages = await runQueryHost({
      model,
      linkServer: stdioConfig('features-server.mjs'),
      analytics: {
        url: world.mcpUrl,
        oauth: {
          serverUrl: world.mcpUrl,
          allowedOrigins: [world.issuer],
          redirectUri: REDIRECT_URI,
        },
      },
      openInBrowserAndWaitForCallback: async (url) => {
        browsed.push(url);
        return world.browse(url);
      },
      openInBrowser: async (url) => void shown.push(url),
    });

    expect(messages.map(kind)).toEqual([
      'system:init',
      'assistant',
      'user',
      'assistant',
      'system:elicitation_complete',
      'user',
      'assistant',
      'user',
      'assistant',
      'result',
    ]);
    const [init] = messages;
    expect(init).toMatchObject({
      type: 'system',
      subtype: 'init',
      model: 'scripted',
      mcp_servers: expect.arrayContaining([
        { name: 'crm', status: 'connected' },
        { name: 'link', status: 'connected' },
        { name: 'analytics', status: 'connected' },
      ]),
    });
    if (init?.type !== 'system' || init.subtype !== 'init') throw new Error('no init');
    expect(init.tools).toEqual(
      expect.arrayContaining([
        'mcp__crm__get_user_orders',
        'mcp__link__ask-url',
        'mcp__analytics__whoami',
      ]),
    );
    // the sign-in went through the authorization server once, before the first message
    expect(browsed).toHaveLength(1);
    expect(new URL(browsed[0]!).origin).toBe(world.issuer);
    const after = world.counters();
    expect(
      (after.tokenRequests.authorization_code ?? 0) -
        (before.tokenRequests.authorization_code ?? 0),
    ).toBe(1);

    const assistant = messages[1];
    expect(assistant).toMatchObject({
      type: 'assistant',
      parent_tool_use_id: null,
      message: {
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            name: 'mcp__crm__get_user_orders',
            input: { userId: 'user-123', status: 'paid' },
          },
        ],
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    });
    const toolUseId =
      assistant?.type === 'assistant' && assistant.message.content[0]?.type === 'tool_use'
        ? assistant.message.content[0].id
        : '';
    expect(messages[2]).toMatchObject({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: toolUseId, is_error: false }],
      },
    });
    expect(JSON.stringify(messages[2])).toContain('o-1');
    // onElicitation answered the URL step; the server's completion became a message
    expect(shown).toEqual(['https://example.com/link?token=secret-canary-url']);
    expect(messages[4]).toMatchObject({ mcp_server_name: 'link', elicitation_id: 'e-1' });
    expect(JSON.stringify(messages[5])).toContain('url answer: accept');
    // the signed-in server answered with the fixture account
    expect(JSON.stringify(messages[7])).toContain('user-1');

    const result = messages.at(-1);
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 4,
      result: 'User-123 has one paid order, o-1.',
      usage: { input_tokens: 100, output_tokens: 10 },
      permission_denials: [],
    });
    if (result?.type !== 'result') throw new Error('no result');
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
    expect(result.session_id).toBe(init.session_id);
  }, 60_000);
});
