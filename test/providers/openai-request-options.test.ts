import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelClientV1, ModelRequest } from '../../src/model/index.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import type { OpenAIProviderOptions } from '../../src/providers/openai.js';
import { ResponsesStream, chatChunk, chatUsageAndDone } from '../fixtures/openai-wire-events.js';
import type { SseEvent } from '../fixtures/openai-wire-server.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { collect, testClient, userRequest } from './provider-test-kit.js';

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** How each API spells the request options, and a short answer to stream back. */
interface ApiCase {
  readonly create: (options: OpenAIProviderOptions) => ModelClientV1;
  readonly maxTokensField: string;
  readonly namedChoice: Record<string, unknown>;
  /** Body fields the request structure owns. */
  readonly reserved: readonly string[];
  readonly answer: () => SseEvent[];
}

const apis: ReadonlyArray<[string, ApiCase]> = [
  [
    'openai.chat',
    {
      create: openaiChat,
      maxTokensField: 'max_completion_tokens',
      namedChoice: { type: 'function', function: { name: 'get_weather' } },
      reserved: ['model', 'messages', 'tools', 'stream', 'stream_options'],
      answer: () => [
        chatChunk({ content: 'Ok.' }),
        chatChunk({}, 'stop'),
        ...chatUsageAndDone({ prompt: 1, completion: 1 }),
      ],
    },
  ],
  [
    'openai.responses',
    {
      create: openaiResponses,
      maxTokensField: 'max_output_tokens',
      namedChoice: { type: 'function', name: 'get_weather' },
      reserved: ['model', 'input', 'instructions', 'tools', 'stream', 'stream_options'],
      answer: () => new ResponsesStream().text('msg_1', ['Ok.']).completed({ input: 1, output: 1 }),
    },
  ],
];

describe.each(apis)('%s request options', (provider, api) => {
  const model = () => api.create({ client: testClient(server) });

  /** Sends one streamed request and returns the body the `openai` client put on the wire. */
  async function sentBody(request: ModelRequest): Promise<Record<string, unknown>> {
    server.script({ kind: 'sse', events: api.answer() });
    await collect(model(), request);
    expect(server.requests).toHaveLength(1);
    return server.requests[0]?.body ?? {};
  }

  it('sends no option field the request did not set', async () => {
    const body = await sentBody(userRequest());
    expect(body).not.toHaveProperty(api.maxTokensField);
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('temperature');
  });

  it('maps maxOutputTokens to its output limit field', async () => {
    const body = await sentBody(userRequest({ maxOutputTokens: 321 }));
    expect(body[api.maxTokensField]).toBe(321);
  });

  it.each(['auto', 'none', 'required'] as const)('sends toolChoice %s as it is', async (choice) => {
    const body = await sentBody(userRequest({ toolChoice: choice }));
    expect(body['tool_choice']).toBe(choice);
  });

  it('sends a named toolChoice in the function shape of the API', async () => {
    const body = await sentBody(userRequest({ toolChoice: { type: 'tool', name: 'get_weather' } }));
    expect(body['tool_choice']).toEqual(api.namedChoice);
  });

  it('merges providerOptions.openai into the body and ignores other providers', async () => {
    const body = await sentBody(
      userRequest({
        providerOptions: {
          openai: { temperature: 0.25, seed: 7, metadata: { app: 'muster' }, user: undefined },
          anthropic: { top_k: 3 },
        },
      }),
    );
    expect(body).toMatchObject({ temperature: 0.25, seed: 7, metadata: { app: 'muster' } });
    expect(body).not.toHaveProperty('top_k');
    expect(body).not.toHaveProperty('user');
    expect(body['model']).toBe('gpt-test');
    expect(body['stream']).toBe(true);
  });

  it.each(api.reserved)(
    'refuses providerOptions.openai.%s when the request owns it, before sending anything',
    async (field) => {
      const request = userRequest({ providerOptions: { openai: { [field]: 'other' } } });
      await expect(collect(model(), request)).rejects.toMatchObject({
        code: 'INVALID_CONFIGURATION',
        details: { provider, providerId: 'openai', option: field },
      });
      expect(server.requests).toHaveLength(0);
    },
  );

  it('refuses a providerOptions.openai field that a request option already sets', async () => {
    const request = userRequest({
      maxOutputTokens: 10,
      providerOptions: { openai: { [api.maxTokensField]: 20 } },
    });
    await expect(collect(model(), request)).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { option: api.maxTokensField },
    });
    expect(server.requests).toHaveLength(0);
  });

  it('lets providerOptions.openai set the output limit when maxOutputTokens is unset', async () => {
    const body = await sentBody(
      userRequest({ providerOptions: { openai: { [api.maxTokensField]: 20 } } }),
    );
    expect(body[api.maxTokensField]).toBe(20);
  });
});
