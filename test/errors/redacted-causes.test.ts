import { inspect } from 'node:util';
import { Anthropic } from '@anthropic-ai/sdk';
import { OpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, MemorySessionStore, scriptedModel } from '../../src/index.js';
import type { AgentEvent, ModelClientV1 } from '../../src/index.js';
import { anthropic } from '../../src/providers/anthropic.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import { anthropicErrorBody } from '../fixtures/anthropic-wire-events.js';
import { startEchoingProxy } from '../fixtures/mcp/echoing-proxy.js';
import { apiErrorBody } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { startDualHttpServer, stdioConfig } from '../support/mcp-fixtures.js';
import { collect } from '../support/run-helpers.js';

// Node prints an error's whole cause chain (and every own property on it) when a host logs
// the error: secrets a server or a model endpoint echoes back must be masked there too.

const HEADER = 'CANARY-HDR-3e71a';
const BEARER = 'CANARY-TOK-88d2c';
const QUERY = 'CANARY-QRY-51f0b';
const ENV = 'CANARY-ENV-9ac4d';
const USERINFO = 'CANARY-USR-0d6e2';
const MODEL_KEY = 'CANARY-KEY-7b19f';

/** Everything a host could log or keep: the error printed with its full chain, and more. */
function printed(...values: unknown[]): string {
  return values.map((v) => inspect(v, { depth: 20, showHidden: false })).join('\n');
}

function expectNoCanary(text: string, canaries: readonly string[]): void {
  for (const canary of canaries) expect(text, canary).not.toContain(canary);
}

describe('item-10: cause chains of Muster errors are redacted', () => {
  it('item-10: MCP header, bearer token, URL query and stdio env echoed back stay masked', async () => {
    const upstream = await startDualHttpServer();
    const proxy = await startEchoingProxy(upstream.url);
    const store = new MemorySessionStore();
    const observed: AgentEvent[] = [];
    const agent = createAgent({
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'mcp__web__echo', arguments: { text: 'hi' } },
            { name: 'mcp__local__echo', arguments: { text: 'yo' } },
          ],
        },
        { text: 'done' },
      ]),
      sessionStore: store,
      policy: { allow: ['mcp_connect:*', 'mcp__*'] },
      observability: { onEvent: (e) => void observed.push(e) },
      mcpServers: {
        web: {
          type: 'http',
          url: `${proxy.url}?key=${QUERY}`,
          headers: { 'X-Api-Key': HEADER },
          auth: { type: 'bearer', token: BEARER },
        },
        local: {
          ...stdioConfig('scripted-stdio-server.mjs' as never, ['--leak-env=SERVICE_TOKEN']),
          env: { SERVICE_TOKEN: ENV },
        },
      },
    });
    try {
      const { events, error } = await collect(agent.run({ input: 'go', sessionId: 'leaky' }));
      expect(error).toBeUndefined();
      const web = await agent.mcp.callTool('web', 'echo', { text: 'x' }).catch((e: unknown) => e);
      const local = await agent.mcp
        .callTool('local', 'echo', { text: 'x' })
        .catch((e: unknown) => e);
      expect(web).toMatchObject({ name: 'ToolError' });
      expect(local).toMatchObject({ name: 'ToolError', code: 'TOOL_EXECUTION_FAILED' });
      // the typed facts survive the copy: the JSON-RPC code of the server's answer
      expect((local as { details: unknown }).details).toMatchObject({ protocolCode: -32603 });
      expect((local as { cause: { code: unknown } }).cause.code).toBe(-32603);
      const userinfo = await agent.mcp
        .register('creds', { type: 'http', url: `http://user:${USERINFO}@127.0.0.1:9/mcp` })
        .catch((e: unknown) => e);
      expect(userinfo).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      const text = printed(web, local, userinfo, events, observed, await store.get('leaky'));
      // the servers did echo them (the chain is there, only masked)
      expect(text).toContain('[redacted]');
      expectNoCanary(text, [HEADER, BEARER, QUERY, ENV, USERINFO]);
    } finally {
      await agent.close();
      await proxy.close();
      await upstream.close();
    }
  });

  describe('a model endpoint that echoes its API key in the error body', () => {
    let server: OpenAIWireServer;
    beforeAll(async () => {
      server = await startOpenAIWireServer();
    });
    afterAll(() => server.close());

    const models: ReadonlyArray<[string, () => ModelClientV1, () => void]> = [
      [
        'openai.chat',
        () =>
          openaiChat({
            client: new OpenAI({ apiKey: MODEL_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 }),
          }),
        () =>
          server.script({
            kind: 'json',
            status: 401,
            body: apiErrorBody(`Incorrect API key provided: ${MODEL_KEY}.`, 'auth', 'bad_key'),
          }),
      ],
      [
        'openai.responses',
        () =>
          openaiResponses({
            client: new OpenAI({ apiKey: MODEL_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 }),
          }),
        () =>
          server.script({
            kind: 'json',
            status: 400,
            body: apiErrorBody(`Key ${MODEL_KEY} may not use this model`, 'invalid', null),
          }),
      ],
      [
        'anthropic',
        () =>
          anthropic({
            client: new Anthropic({ apiKey: MODEL_KEY, baseURL: server.url, maxRetries: 0 }),
          }),
        () =>
          server.script({
            kind: 'json',
            status: 401,
            body: anthropicErrorBody('authentication_error', `invalid x-api-key ${MODEL_KEY}`),
          }),
      ],
    ];

    it.each(models)(
      'item-10: %s keeps the key out of the thrown error, session.failed and the session',
      async (_name, make, script) => {
        script();
        const store = new MemorySessionStore();
        const agent = createAgent({ model: make(), modelName: 'test-model', sessionStore: store });
        try {
          const { events, error } = await collect(agent.run({ input: 'hi', sessionId: 'm' }));
          expect(error).toMatchObject({ code: 'MODEL_REQUEST_FAILED' });
          const failed = events.find((e) => e.type === 'session.failed');
          expect(failed).toBeDefined();
          // the chain is kept: the vendor's error, its status a typed fact
          const cause = (error as { cause?: { status?: unknown } }).cause;
          expect(cause?.status).toBe((error as { status?: unknown }).status);
          expectNoCanary(printed(error, failed, events, await store.get('m')), [MODEL_KEY]);
        } finally {
          await agent.close();
          server.reset();
        }
      },
    );
  });
});
