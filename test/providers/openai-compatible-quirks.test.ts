import { OpenAI } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, tool } from '../../src/index.js';
import { MusterError } from '../../src/errors/index.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ResponsesStream, apiErrorBody } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer, SseEvent } from '../fixtures/openai-wire-server.js';
import { collect as collectRun, ofType } from '../support/run-helpers.js';
import { TEST_API_KEY, collect, userRequest } from './provider-test-kit.js';

// openaiChat({ baseURL }) against a FAKE OpenAI-compatible server with the quirks of local
// servers (Ollama, vLLM, llama.cpp builds): no usage chunk although include_usage was asked,
// tool-call deltas without `index`, calls without ids, and `finish_reason: "stop"` on a turn
// that called tools. The fake is the loopback wire server fed chunks in those shapes.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** A chunk as a quirky local server writes it: no usage field, no fingerprint. */
function quirkyChunk(delta: Record<string, unknown>, finish: string | null = null): SseEvent {
  return {
    data: {
      id: 'chatcmpl-local',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'qwen3',
      choices: [{ index: 0, delta, finish_reason: finish }],
    },
  };
}

describe('openaiChat against a quirky OpenAI-compatible server (a fake)', () => {
  it('assembles tool calls streamed without index or ids and runs them', async () => {
    server.script(
      {
        kind: 'sse',
        events: [
          quirkyChunk({ role: 'assistant', content: '' }),
          // Whole calls, one per delta, with neither index nor id (as some servers send them).
          quirkyChunk({
            tool_calls: [
              { type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            ],
          }),
          quirkyChunk({
            tool_calls: [
              { type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
            ],
          }),
          quirkyChunk({ tool_calls: [{ function: { arguments: '"Rome"}' } }] }),
          quirkyChunk({}, 'stop'),
          { data: '[DONE]' },
        ],
      },
      {
        kind: 'sse',
        events: [
          quirkyChunk({ content: 'Cold and warm.' }),
          quirkyChunk({}, 'stop'),
          { data: '[DONE]' },
        ],
      },
    );
    const seen: string[] = [];
    const agent = createAgent({
      // As a local-server user writes it: a base URL and any key.
      model: openaiChat({ baseURL: `${server.url}/v1`, apiKey: 'ollama' }),
      modelName: 'qwen3',
      tools: [
        tool({
          name: 'get_weather',
          description: 'Weather for a city.',
          input: z.object({ city: z.string() }),
          execute: ({ city }) => {
            seen.push(city);
            return `${city}: ok`;
          },
        }),
      ],
      policy: { allow: ['get_weather'] },
    });
    const run = await collectRun(agent.run({ input: 'Oslo and Rome?' }));
    expect(run.error).toBeUndefined();
    expect(seen).toEqual(['Oslo', 'Rome']);
    const completed = ofType(run.events, 'model.completed');
    expect(completed[0]?.stopReason).toBe('tool-calls');
    expect(completed[0]?.toolCalls).toEqual([
      { callId: 'call_0', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'call_1', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    // No usage chunk came: the turn has no usage rather than made-up counts.
    expect(completed[0]?.usage).toBeUndefined();
    expect(server.requests[0]!.body['stream_options']).toEqual({ include_usage: true });
    const messages = server.requests[1]!.body['messages'] as Record<string, unknown>[];
    expect(messages.filter((m) => m['role'] === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_0', content: 'Oslo: ok' },
      { role: 'tool', tool_call_id: 'call_1', content: 'Rome: ok' },
    ]);
  });

  it('refuses images before any request for a model set up with images: false', async () => {
    const request = userRequest({
      modelName: 'qwen3',
      messages: [
        { role: 'user', content: [{ type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' }] },
      ],
    });
    for (const model of [
      openaiChat({ baseURL: `${server.url}/v1`, apiKey: 'ollama', images: false }),
      fromAiSdk(createOpenAICompatible({ name: 'local', baseURL: `${server.url}/v1` })('qwen3'), {
        images: false,
      }),
    ]) {
      expect(model.capabilities).toEqual({ images: false });
      const err = await collect(model, request).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAI requests', () => {
  it('send a host prompt cache key as prompt_cache_key, on both APIs', async () => {
    server.script(
      {
        kind: 'sse',
        events: [quirkyChunk({ content: 'a' }), quirkyChunk({}, 'stop'), { data: '[DONE]' }],
      },
      {
        kind: 'sse',
        events: new ResponsesStream().text('m', ['b']).completed({ input: 1, output: 1 }),
      },
    );
    const client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: `${server.url}/v1` });
    const agent = (model: ReturnType<typeof openaiChat>) =>
      createAgent({ model, modelName: 'gpt-test', promptCacheKey: 'tenant-7' });
    await agent(openaiChat({ client })).send('hi');
    await agent(openaiResponses({ client })).send('hi', { promptCacheKey: 'tenant-8' });
    expect(server.requests.map((r) => r.body['prompt_cache_key'])).toEqual([
      'tenant-7',
      'tenant-8',
    ]);
  });

  it("turn the client's own retries off, also on a client the host built with retries", async () => {
    server.script(
      { kind: 'json', status: 503, body: apiErrorBody('busy', 'server_error', null) },
      { kind: 'json', status: 503, body: apiErrorBody('busy', 'server_error', null) },
    );
    const client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: `${server.url}/v1`, maxRetries: 5 });
    const err = await collect(openaiChat({ client }), userRequest()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 503, isRetryable: true });
    expect(server.requests).toHaveLength(1);
  });
});
