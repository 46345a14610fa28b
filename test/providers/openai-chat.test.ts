import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openaiChat } from '../../src/providers/openai.js';
import { chatChunk, chatCompletion, chatUsageAndDone } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import {
  MULTI_TURN_TRANSCRIPT,
  TEST_API_KEY,
  collect,
  failure,
  testClient,
  textOf,
  userRequest,
} from './provider-test-kit.js';

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const model = () => openaiChat({ client: testClient(server) });

function toolCallDelta(index: number, fields: Record<string, unknown>) {
  return chatChunk({ tool_calls: [{ index, ...fields }] });
}

describe('openaiChat', () => {
  it('streams text deltas in order and maps the finish and usage', async () => {
    server.script({
      kind: 'sse',
      events: [
        chatChunk({ role: 'assistant', content: '', refusal: null }),
        chatChunk({ content: 'Sunny ' }),
        chatChunk({ content: 'in ' }),
        chatChunk({ content: 'Paris.' }),
        chatChunk({}, 'stop'),
        ...chatUsageAndDone({ prompt: 12, completion: 3 }),
      ],
    });
    const parts = await collect(model(), userRequest());
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Sunny ' },
      { type: 'text-delta', text: 'in ' },
      { type: 'text-delta', text: 'Paris.' },
      {
        type: 'finish',
        stopReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
      },
    ]);
    const [sent] = server.requests;
    expect(sent?.path).toBe('/v1/chat/completions');
    expect(sent?.headers['authorization']).toBe(`Bearer ${TEST_API_KEY}`);
    expect(sent?.body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
    });
    expect(sent?.body).not.toHaveProperty('reasoning_effort');
  });

  it('assembles two parallel tool calls from interleaved argument fragments', async () => {
    server.script({
      kind: 'sse',
      events: [
        chatChunk({ role: 'assistant', content: null }),
        toolCallDelta(0, {
          id: 'call_a',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        }),
        toolCallDelta(1, {
          id: 'call_b',
          type: 'function',
          function: { name: 'get_time', arguments: '' },
        }),
        toolCallDelta(1, { function: { arguments: '{"zone":' } }),
        toolCallDelta(0, { function: { arguments: '{"ci' } }),
        toolCallDelta(0, { function: { arguments: 'ty":"Paris"}' } }),
        toolCallDelta(1, { function: { arguments: '"CET"}' } }),
        chatChunk({}, 'tool_calls'),
        ...chatUsageAndDone({ prompt: 40, completion: 20, reasoning: 8, cached: 32 }),
      ],
    });
    const parts = await collect(model(), userRequest());
    expect(parts).toEqual([
      {
        type: 'tool-call',
        callId: 'call_a',
        name: 'get_weather',
        argumentsText: '{"city":"Paris"}',
      },
      { type: 'tool-call', callId: 'call_b', name: 'get_time', argumentsText: '{"zone":"CET"}' },
      {
        type: 'finish',
        stopReason: 'tool-calls',
        usage: {
          inputTokens: 40,
          outputTokens: 20,
          totalTokens: 60,
          reasoningTokens: 8,
          cachedInputTokens: 32,
        },
      },
    ]);
  });

  it('forwards reasoningEffort and streams reasoning_content / reasoning deltas', async () => {
    server.script({
      kind: 'sse',
      events: [
        chatChunk({ role: 'assistant', reasoning_content: 'Think' }),
        chatChunk({ reasoning: 'ing.' }),
        chatChunk({ content: 'Done.' }),
        chatChunk({}, 'length'),
        ...chatUsageAndDone({ prompt: 5, completion: 5 }),
      ],
    });
    const parts = await collect(model(), userRequest({ reasoningEffort: 'high', tools: [] }));
    expect(parts.slice(0, 3)).toEqual([
      { type: 'reasoning-delta', text: 'Think' },
      { type: 'reasoning-delta', text: 'ing.' },
      { type: 'text-delta', text: 'Done.' },
    ]);
    expect(parts[3]).toMatchObject({ type: 'finish', stopReason: 'length' });
    expect(server.requests[0]?.body['reasoning_effort']).toBe('high');
    expect(server.requests[0]?.body).not.toHaveProperty('tools');
  });

  it('serializes a multi-turn transcript with tool calls, tool results and tool images', async () => {
    server.script({
      kind: 'sse',
      events: [chatChunk({ content: 'Rome is warmer.' }, 'stop'), { data: '[DONE]' }],
    });
    await collect(model(), userRequest({ messages: MULTI_TURN_TRANSCRIPT }));
    expect(server.requests[0]?.body['messages']).toEqual([
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare the weather.' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,aGVsbG8=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/map.png' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          {
            id: 'call_paris',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
          {
            id: 'call_rome',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_paris', content: 'Paris: 18C' },
      { role: 'tool', tool_call_id: 'call_rome', content: 'Rome: 24C, radar attached' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by tool get_weather (call call_rome):' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,cmFkYXI=' } },
        ],
      },
    ]);
  });

  it('rejects with ABORTED when the signal fires in the middle of a stream', async () => {
    server.script({ kind: 'sse', events: [chatChunk({ content: 'Hel' })], hold: true });
    const controller = new AbortController();
    const parts = model().generate(userRequest(), { signal: controller.signal });
    const iterator = parts[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({
      done: false,
      value: { type: 'text-delta', text: 'Hel' },
    });
    controller.abort();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'ABORTED' });
    await server.heldStreamClosed();
  }, 5_000);

  it('reports a stream that ends without a finish reason as invalid and retryable', async () => {
    server.script({ kind: 'sse', events: [chatChunk({ content: 'Hel' })] });
    const err = await failure(model(), userRequest());
    expect(err.code).toBe('MODEL_RESPONSE_INVALID');
    expect(err.isRetryable).toBe(true);
  });

  it('works non-streamed', async () => {
    server.script({
      kind: 'json',
      body: chatCompletion(
        {
          content: 'Calling.',
          tool_calls: [
            {
              id: 'call_x',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        'tool_calls',
        { prompt: 9, completion: 4 },
      ),
    });
    const parts = await collect(model(), userRequest({ stream: false }));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Calling.' },
      {
        type: 'tool-call',
        callId: 'call_x',
        name: 'get_weather',
        argumentsText: '{"city":"Oslo"}',
      },
      {
        type: 'finish',
        stopReason: 'tool-calls',
        usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 },
      },
    ]);
    expect(server.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(server.requests[0]?.body['stream']).not.toBe(true);
  });

  it('builds its own client from apiKey and baseURL, using the default model name', async () => {
    server.script({
      kind: 'sse',
      events: [chatChunk({ content: 'Hi' }, 'stop'), { data: '[DONE]' }],
    });
    const own = openaiChat({
      apiKey: 'sk-options',
      baseURL: `${server.url}/v1`,
      modelName: 'gpt-default',
    });
    expect(own.defaultModelName).toBe('gpt-default');
    expect(own.provider).toBe('openai.chat');
    const parts = await collect(own, userRequest({ modelName: '' }));
    expect(textOf(parts)).toBe('Hi');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-options');
    expect(server.requests[0]?.body['model']).toBe('gpt-default');
  });
});
