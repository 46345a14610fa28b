import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openaiResponses } from '../../src/providers/openai.js';
import { ResponsesStream, responseObject } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import {
  MULTI_TURN_TRANSCRIPT,
  TEST_API_KEY,
  collect,
  expectNoSecret,
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

const model = () => openaiResponses({ client: testClient(server) });

describe('openaiResponses', () => {
  it('streams text deltas in order and finishes with usage and the response id', async () => {
    const events = new ResponsesStream('resp_1')
      .text('msg_1', ['Sunny ', 'in ', 'Paris.'])
      .completed({ input: 12, output: 3 });
    server.script({ kind: 'sse', events });
    const parts = await collect(model(), userRequest());
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Sunny ' },
      { type: 'text-delta', text: 'in ' },
      { type: 'text-delta', text: 'Paris.' },
      {
        type: 'finish',
        stopReason: 'stop',
        usage: {
          inputTokens: 12,
          outputTokens: 3,
          totalTokens: 15,
          reasoningTokens: 0,
          cachedInputTokens: 0,
        },
        providerMetadata: { openai: { responseId: 'resp_1' } },
      },
    ]);
    const [sent] = server.requests;
    expect(sent?.path).toBe('/v1/responses');
    expect(sent?.headers['authorization']).toBe(`Bearer ${TEST_API_KEY}`);
    expect(sent?.body).toEqual({
      model: 'gpt-test',
      stream: true,
      instructions: 'You are terse.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris and Rome?' }] },
      ],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          strict: false,
        },
      ],
    });
  });

  it('yields reasoning and two parallel function calls with their item ids', async () => {
    const events = new ResponsesStream('resp_2')
      .reasoning('rs_1', ['Need ', 'both.'], 'enc_1')
      .functionCall('fc_1', 'call_a', 'get_weather', ['{"ci', 'ty":"Paris"}'])
      .functionCall('fc_2', 'call_b', 'get_weather', ['{"city":', '"Rome"}'])
      .completed({ input: 40, output: 20, reasoning: 8, cached: 32 });
    server.script({ kind: 'sse', events });
    const parts = await collect(model(), userRequest({ reasoningEffort: 'medium' }));
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'Need ' },
      { type: 'reasoning-delta', text: 'both.' },
      {
        type: 'reasoning',
        text: 'Need both.',
        providerMetadata: { openai: { itemId: 'rs_1', encryptedContent: 'enc_1' } },
      },
      {
        type: 'tool-call',
        callId: 'call_a',
        name: 'get_weather',
        argumentsText: '{"city":"Paris"}',
        providerMetadata: { openai: { itemId: 'fc_1' } },
      },
      {
        type: 'tool-call',
        callId: 'call_b',
        name: 'get_weather',
        argumentsText: '{"city":"Rome"}',
        providerMetadata: { openai: { itemId: 'fc_2' } },
      },
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
        providerMetadata: { openai: { responseId: 'resp_2' } },
      },
    ]);
    expect(server.requests[0]?.body).toMatchObject({
      reasoning: { effort: 'medium' },
      include: ['reasoning.encrypted_content'],
    });
  });

  it('sends the transcript back: reasoning, function calls with ids, outputs and tool images', async () => {
    server.script({
      kind: 'sse',
      events: new ResponsesStream().text('msg_2', ['Rome.']).completed({ input: 1, output: 1 }),
    });
    await collect(model(), userRequest({ messages: MULTI_TURN_TRANSCRIPT, tools: [] }));
    const body = server.requests[0]?.body;
    expect(body).not.toHaveProperty('tools');
    expect(body).not.toHaveProperty('include');
    expect(body?.['input']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Compare the weather.' },
          { type: 'input_image', image_url: 'data:image/png;base64,aGVsbG8=', detail: 'auto' },
          { type: 'input_image', image_url: 'https://example.com/map.png', detail: 'auto' },
        ],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Need both cities.' }],
        encrypted_content: 'enc_1',
      },
      { role: 'assistant', content: 'Checking both.' },
      {
        type: 'function_call',
        id: 'fc_paris',
        call_id: 'call_paris',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      },
      {
        type: 'function_call',
        id: 'fc_rome',
        call_id: 'call_rome',
        name: 'get_weather',
        arguments: '{"city":"Rome"}',
      },
      { type: 'function_call_output', call_id: 'call_paris', output: 'Paris: 18C' },
      { type: 'function_call_output', call_id: 'call_rome', output: 'Rome: 24C, radar attached' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Images returned by tool get_weather (call call_rome):' },
          { type: 'input_image', image_url: 'data:image/jpeg;base64,cmFkYXI=', detail: 'auto' },
        ],
      },
    ]);
  });

  it('turns a response.failed event into a ModelError', async () => {
    const stream = new ResponsesStream('resp_f').text('msg_1', ['Par']);
    const failed = { ...responseObject('resp_f', 'failed', []) };
    failed['error'] = { code: 'server_error', message: `The model crashed near ${TEST_API_KEY}` };
    stream.emit('response.failed', { response: failed });
    server.script({ kind: 'sse', events: stream.events });
    const err = await failure(model(), userRequest());
    expect(err.code).toBe('MODEL_REQUEST_FAILED');
    expect(err.isRetryable).toBe(true);
    expect(err.message).toContain('The model crashed');
    expectNoSecret(err);
  });

  it('turns an error event into a ModelError', async () => {
    const stream = new ResponsesStream('resp_e').emit('error', {
      code: 'invalid_prompt',
      message: 'The prompt was rejected.',
      param: null,
    });
    server.script({ kind: 'sse', events: stream.events });
    const err = await failure(model(), userRequest());
    expect(err.code).toBe('MODEL_REQUEST_FAILED');
    expect(err.isRetryable).toBe(false);
    expect(err.details).toMatchObject({ errorCode: 'invalid_prompt' });
  });

  it('rejects with ABORTED when the signal fires in the middle of a stream', async () => {
    const events = new ResponsesStream().text('msg_1', ['Hel']).events.slice(0, 3);
    server.script({ kind: 'sse', events, hold: true });
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

  it('maps an incomplete response cut by max_output_tokens to length', async () => {
    const events = new ResponsesStream('resp_i')
      .text('msg_1', ['Long'])
      .completed({ input: 3, output: 9 }, 'incomplete');
    server.script({ kind: 'sse', events });
    const parts = await collect(model(), userRequest());
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'length' });
  });

  it('works non-streamed', async () => {
    const output = new ResponsesStream('resp_n')
      .reasoning('rs_9', ['Hmm.'])
      .text('msg_9', ['Calling.'])
      .functionCall('fc_9', 'call_9', 'get_weather', ['{"city":"Oslo"}']).output;
    server.script({
      kind: 'json',
      body: responseObject('resp_n', 'completed', output, { input: 9, output: 4 }),
    });
    const parts = await collect(model(), userRequest({ stream: false }));
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'Hmm.' },
      { type: 'reasoning', text: 'Hmm.', providerMetadata: { openai: { itemId: 'rs_9' } } },
      { type: 'text-delta', text: 'Calling.' },
      {
        type: 'tool-call',
        callId: 'call_9',
        name: 'get_weather',
        argumentsText: '{"city":"Oslo"}',
        providerMetadata: { openai: { itemId: 'fc_9' } },
      },
      {
        type: 'finish',
        stopReason: 'tool-calls',
        usage: {
          inputTokens: 9,
          outputTokens: 4,
          totalTokens: 13,
          reasoningTokens: 0,
          cachedInputTokens: 0,
        },
        providerMetadata: { openai: { responseId: 'resp_n' } },
      },
    ]);
    expect(server.requests[0]?.body['stream']).not.toBe(true);
  });

  it('builds its own client from apiKey and baseURL', async () => {
    server.script({
      kind: 'sse',
      events: new ResponsesStream().text('msg_1', ['Hi']).completed({ input: 1, output: 1 }),
    });
    const own = openaiResponses({ apiKey: 'sk-options', baseURL: `${server.url}/v1` });
    expect(own.provider).toBe('openai.responses');
    expect(textOf(await collect(own, userRequest()))).toBe('Hi');
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-options');
  });
});
