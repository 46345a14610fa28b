import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MusterError } from '../../src/errors/index.js';
import type { ModelOutputFormat, ModelRequest } from '../../src/model/index.js';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { AnthropicStream } from '../fixtures/anthropic-wire-events.js';
import { chatChunk, chatUsageAndDone } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer, WireTurn } from '../fixtures/openai-wire-server.js';
import { TEST_API_KEY, collect, textOf, userRequest } from './provider-test-kit.js';

// A typed final answer (request.output) through fromAiSdk(): the LanguageModelV3 call options
// it builds, and what real AI SDK providers put on the wire of the loopback server.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['title', 'note'],
  additionalProperties: false,
};

const OUTPUT: ModelOutputFormat = {
  name: 'final_answer',
  description: 'The book found.',
  schema: SCHEMA,
  strict: true,
};

const ANSWER = '{"title":"Dune","note":null}';

/** A real AI SDK model whose call options are recorded on their way to it. */
function recorded(model: LanguageModelV3): {
  model: LanguageModelV3;
  calls: LanguageModelV3CallOptions[];
} {
  const calls: LanguageModelV3CallOptions[] = [];
  return {
    calls,
    model: {
      specificationVersion: 'v3',
      provider: model.provider,
      modelId: model.modelId,
      supportedUrls: model.supportedUrls,
      doGenerate: (options) => (calls.push(options), model.doGenerate(options)),
      doStream: (options) => (calls.push(options), model.doStream(options)),
    },
  };
}

const compatible = () =>
  recorded(
    createOpenAICompatible({
      name: 'local',
      baseURL: `${server.url}/v1`,
      apiKey: TEST_API_KEY,
      includeUsage: true,
      supportsStructuredOutputs: true,
    })('qwen-test'),
  );
const claude = () =>
  recorded(createAnthropic({ baseURL: `${server.url}/v1`, apiKey: TEST_API_KEY })('claude-test'));

const chatAnswer = (chunks: readonly string[]): WireTurn => ({
  kind: 'sse',
  events: [
    chatChunk({ role: 'assistant', content: '' }),
    ...chunks.map((content) => chatChunk({ content })),
    chatChunk({}, 'stop'),
    ...chatUsageAndDone({ prompt: 9, completion: 7 }),
  ],
});
const request = (modelName: string, overrides: Partial<ModelRequest> = {}) =>
  userRequest({ modelName, output: OUTPUT, ...overrides });
const sent = (i = 0) => server.requests[i]!.body;

describe('fromAiSdk typed answer over @ai-sdk/openai-compatible', () => {
  it('sends responseFormat beside the tools; response_format json_schema reaches the wire', async () => {
    server.script(chatAnswer([ANSWER.slice(0, 10), ANSWER.slice(10)]));
    const { model, calls } = compatible();
    const parts = await collect(fromAiSdk(model), request('qwen-test'));
    expect(calls[0]!.responseFormat).toEqual({
      type: 'json',
      schema: SCHEMA,
      name: 'final_answer',
      description: 'The book found.',
    });
    expect(calls[0]!.tools?.map((t) => t.name)).toEqual(['get_weather']);
    expect(calls[0]!.providerOptions).toEqual({ local: { strictJsonSchema: true } });
    expect(sent()['response_format']).toEqual({
      type: 'json_schema',
      json_schema: {
        schema: SCHEMA,
        strict: true,
        name: 'final_answer',
        description: 'The book found.',
      },
    });
    expect((sent()['tools'] as { function: { name: string } }[])[0]!.function.name).toBe(
      'get_weather',
    );
    expect(textOf(parts)).toBe(ANSWER);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'stop' });
  });

  it('turns strict off on the wire for a schema Muster could not make strict', async () => {
    server.script(chatAnswer([ANSWER]));
    const { model } = compatible();
    const { description: _unused, ...bare } = OUTPUT;
    await collect(fromAiSdk(model), request('qwen-test', { output: { ...bare, strict: false } }));
    expect(sent()['response_format']).toEqual({
      type: 'json_schema',
      json_schema: { schema: SCHEMA, strict: false, name: 'final_answer' },
    });
  });

  it('sends no responseFormat and no response_format without output', async () => {
    server.script(chatAnswer(['Hi']));
    const { model, calls } = compatible();
    await collect(fromAiSdk(model), userRequest({ modelName: 'qwen-test' }));
    expect(calls[0]).not.toHaveProperty('responseFormat');
    expect(calls[0]).not.toHaveProperty('providerOptions');
    expect(sent()).not.toHaveProperty('response_format');
  });

  it.each([
    ['local', 'response_format', { type: 'json_object' }],
    ['local', 'strictJsonSchema', false],
    ['openaiCompatible', 'responseFormat', { type: 'text' }],
  ])(
    'refuses providerOptions.%s.%s with output, before any request',
    async (providerId, option, value) => {
      const { model } = compatible();
      const err = await collect(
        fromAiSdk(model),
        request('qwen-test', { providerOptions: { [providerId]: { [option]: value } } }),
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
      expect(err).toMatchObject({ details: { providerId, option } });
      expect((err as Error).message).toContain('run({ output })');
      expect(server.requests).toHaveLength(0);
    },
  );
});

describe('fromAiSdk typed answer over @ai-sdk/anthropic', () => {
  it('reaches the wire as output_config.format beside the tools; the answer is text', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .text([ANSWER.slice(0, 5), ANSWER.slice(5)])
        .stop('end_turn', { input: 9, output: 7 }),
    });
    const { model, calls } = claude();
    const parts = await collect(fromAiSdk(model), request('claude-test'));
    expect(calls[0]!.responseFormat).toMatchObject({ type: 'json', schema: SCHEMA });
    expect(sent()['output_config']).toEqual({ format: { type: 'json_schema', schema: SCHEMA } });
    expect((sent()['tools'] as { name: string }[]).map((t) => t.name)).toEqual(['get_weather']);
    expect(textOf(parts)).toBe(ANSWER);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'stop' });
  });

  it('sends no output_config without output', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream().text(['Hi']).stop('end_turn', { input: 1, output: 1 }),
    });
    const { model, calls } = claude();
    await collect(fromAiSdk(model), userRequest({ modelName: 'claude-test' }));
    expect(calls[0]).not.toHaveProperty('responseFormat');
    expect(sent()).not.toHaveProperty('output_config');
  });
});
