import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MusterError } from '../../src/errors/index.js';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { AnthropicStream } from '../fixtures/anthropic-wire-events.js';
import {
  apiErrorBody,
  chatChunk,
  chatCompletion,
  chatUsageAndDone,
} from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import {
  TEST_API_KEY,
  collect,
  expectNoSecret,
  failure,
  userRequest,
} from './provider-test-kit.js';

// fromAiSdk() over real AI SDK providers, against the loopback wire server.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const compatible = (id = 'qwen-test') =>
  fromAiSdk(
    createOpenAICompatible({
      name: 'local',
      baseURL: `${server.url}/v1`,
      apiKey: TEST_API_KEY,
      includeUsage: true,
    })(id),
  );
const claude = () =>
  fromAiSdk(createAnthropic({ baseURL: `${server.url}/v1`, apiKey: TEST_API_KEY })('claude-test'));

describe('fromAiSdk', () => {
  it('takes its model name and provider label from the AI SDK model', () => {
    const model = compatible();
    expect(model.defaultModelName).toBe('qwen-test');
    expect(model.provider).toBe('ai-sdk.local.chat');
  });

  it('refuses something that is not a LanguageModelV3', () => {
    let caught: unknown;
    try {
      fromAiSdk({ specificationVersion: 'v2', doStream: () => undefined } as never);
    } catch (err) {
      caught = err;
    }
    expect(MusterError.isInstance(caught) && caught.code).toBe('INVALID_CONFIGURATION');
  });

  it('refuses a run that names another model, before any request', async () => {
    const err = await collect(compatible(), userRequest({ modelName: 'other-model' })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
    expect(server.requests).toHaveLength(0);
  });

  it('passes toolChoice, maxOutputTokens and providerOptions to the AI SDK model', async () => {
    server.script({
      kind: 'sse',
      events: [
        chatChunk({ content: 'ok' }),
        chatChunk({}, 'length'),
        ...chatUsageAndDone({ prompt: 3, completion: 2, reasoning: 1 }),
      ],
    });
    const parts = await collect(
      compatible(),
      userRequest({
        modelName: 'qwen-test',
        toolChoice: { type: 'tool', name: 'get_weather' },
        maxOutputTokens: 64,
        providerOptions: { local: { user: 'u-1' } },
      }),
    );
    expect(server.requests[0]!.body).toMatchObject({
      model: 'qwen-test',
      max_tokens: 64,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      user: 'u-1',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris and Rome?' },
      ],
    });
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      stopReason: 'length',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5, reasoningTokens: 1 },
    });
  });

  it('sends reasoningEffort as reasoning_effort, and as a thinking budget to Anthropic', async () => {
    server.script(
      {
        kind: 'sse',
        events: [
          chatChunk({ content: 'a' }),
          chatChunk({}, 'stop'),
          ...chatUsageAndDone({ prompt: 1, completion: 1 }),
        ],
      },
      {
        kind: 'sse',
        events: new AnthropicStream().text(['b']).stop('end_turn', { input: 1, output: 1 }),
      },
    );
    await collect(compatible(), userRequest({ modelName: 'qwen-test', reasoningEffort: 'high' }));
    await collect(claude(), userRequest({ modelName: 'claude-test', reasoningEffort: 'low' }));
    expect(server.requests[0]!.body['reasoning_effort']).toBe('high');
    expect(server.requests[1]!.body['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });

  it('reads a buffered answer with doGenerate', async () => {
    server.script({
      kind: 'json',
      body: chatCompletion(
        {
          content: 'Calling.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        'tool_calls',
        { prompt: 4, completion: 6 },
      ),
    });
    const parts = await collect(
      compatible(),
      userRequest({ modelName: 'qwen-test', stream: false }),
    );
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Calling.' },
      {
        type: 'tool-call',
        callId: 'call_1',
        name: 'get_weather',
        argumentsText: '{"city":"Oslo"}',
      },
      expect.objectContaining({ type: 'finish', stopReason: 'tool-calls' }),
    ]);
  });

  it.each([
    [500, true],
    [429, true],
    [400, false],
  ])('an APICallError with HTTP %i keeps isRetryable %s and no key', async (status, retryable) => {
    server.script({
      kind: 'json',
      status,
      body: apiErrorBody(`failed for ${TEST_API_KEY}`, 'x', null),
    });
    const err = await failure(compatible(), userRequest({ modelName: 'qwen-test' }));
    expect(err).toMatchObject({ code: 'MODEL_REQUEST_FAILED', status, isRetryable: retryable });
    expect(err.message).not.toContain('Bearer');
    expect(JSON.stringify(err)).not.toContain(`Bearer ${TEST_API_KEY}`);
  });

  it('keeps Anthropic thinking metadata under providerMetadata.aiSdk and stop reasons', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .thinking(['Hmm.'], 'SIG-Z')
        .text(['Done'])
        .stop('max_tokens', { input: 5, output: 3 }),
    });
    const parts = await collect(claude(), userRequest({ modelName: 'claude-test' }));
    expect(parts.find((p) => p.type === 'reasoning')).toMatchObject({
      type: 'reasoning',
      text: 'Hmm.',
      providerMetadata: { aiSdk: { anthropic: { signature: 'SIG-Z' } } },
    });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'length' });
  });

  it('a mid-stream Anthropic overloaded_error is retryable', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream().partialText('Hal').error('overloaded_error', 'Overloaded'),
    });
    const err = await failure(claude(), userRequest({ modelName: 'claude-test' }));
    expect(err).toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
      isRetryable: true,
      details: { errorType: 'overloaded_error' },
    });
    expectNoSecret(err);
  });
});
