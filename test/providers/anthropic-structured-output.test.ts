import { Anthropic } from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MusterError } from '../../src/errors/index.js';
import type { ModelOutputFormat, ModelRequest } from '../../src/model/index.js';
import { anthropic } from '../../src/providers/anthropic.js';
import { AnthropicStream } from '../fixtures/anthropic-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { TEST_API_KEY, collect, textOf, userRequest } from './provider-test-kit.js';

// A typed final answer (request.output) on anthropic(), natively (output_config.format) and as
// an answer tool, through the official @anthropic-ai/sdk against the loopback wire server.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** A strict-form schema with constraints the SDK transform moves into descriptions. */
const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 3 },
    contact: { type: 'string', format: 'email' },
    isbn: { type: 'string', format: 'isbn' },
    note: { anyOf: [{ type: 'string', maxLength: 40 }, { type: 'null' }] },
  },
  required: ['title', 'contact', 'isbn', 'note'],
  additionalProperties: false,
};

const OUTPUT: ModelOutputFormat = {
  name: 'final_answer',
  description: 'The book found.',
  schema: SCHEMA,
  strict: true,
};

const ANSWER = '{"title":"Dune","contact":"a@b.c","isbn":"0441013597","note":null}';

const native = () =>
  anthropic({ client: new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.url }) });
const viaTool = () =>
  anthropic({
    client: new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.url }),
    structuredOutput: 'tool',
  });
const request = (overrides: Partial<ModelRequest> = {}) =>
  userRequest({ modelName: 'claude-test', output: OUTPUT, ...overrides });
const sent = (i = 0) => server.requests[i]!.body;
const textAnswer = (chunks: readonly string[], stop = 'end_turn') => ({
  kind: 'sse' as const,
  events: new AnthropicStream().text(chunks).stop(stop, { input: 9, output: 7 }),
});

async function refusal(run: Promise<unknown>): Promise<MusterError> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(MusterError.isInstance(err) && err.code).toBe('INVALID_CONFIGURATION');
  expect(server.requests).toHaveLength(0);
  return err as MusterError;
}

describe('anthropic typed answer, native (output_config)', () => {
  it('sends output_config.format with the SDK transform of the schema, beside the tools', async () => {
    server.script(textAnswer([ANSWER.slice(0, 20), ANSWER.slice(20)]));
    const parts = await collect(native(), request());
    const body = sent();
    expect(body['output_config']).toEqual({
      format: { type: 'json_schema', schema: transformJSONSchema(SCHEMA) },
    });
    // The transform happened: what the API does not enforce moved into descriptions.
    const schema = (body['output_config'] as { format: { schema: Record<string, unknown> } }).format
      .schema;
    expect(schema['properties']).toEqual({
      title: { type: 'string', description: '{minLength: 3}' },
      contact: { type: 'string', format: 'email' },
      isbn: { type: 'string', description: '{format: "isbn"}' },
      note: { anyOf: [{ type: 'string', description: '{maxLength: 40}' }, { type: 'null' }] },
    });
    expect((body['tools'] as { name: string }[]).map((t) => t.name)).toEqual(['get_weather']);
    expect(body).not.toHaveProperty('tool_choice');
    expect(textOf(parts)).toBe(ANSWER);
    expect(parts.some((p) => p.type === 'tool-call')).toBe(false);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'stop' });
  });

  it('merges the output_config of providerOptions.anthropic (effort) with the format', async () => {
    server.script(textAnswer([ANSWER]));
    await collect(
      native(),
      request({ providerOptions: { anthropic: { output_config: { effort: 'low' }, top_k: 5 } } }),
    );
    expect(sent()['output_config']).toEqual({
      effort: 'low',
      format: { type: 'json_schema', schema: transformJSONSchema(SCHEMA) },
    });
    expect(sent()['top_k']).toBe(5);
  });

  it('sends no output_config, answer tool or tool_choice without output', async () => {
    server.script(textAnswer(['Hi']), textAnswer(['Hi']));
    await collect(native(), userRequest({ modelName: 'claude-test' }));
    await collect(viaTool(), userRequest({ modelName: 'claude-test' }));
    for (const i of [0, 1]) {
      expect(sent(i)).not.toHaveProperty('output_config');
      expect(sent(i)).not.toHaveProperty('tool_choice');
      expect((sent(i)['tools'] as { name: string }[]).map((t) => t.name)).toEqual(['get_weather']);
    }
  });

  it('keeps a refusal stop reason a content-filter finish, not a success', async () => {
    server.script(textAnswer(['I cannot help with that.'], 'refusal'));
    const parts = await collect(native(), request());
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'content-filter' });
  });

  it('refuses providerOptions that set output_config.format, before any request', async () => {
    const err = await refusal(
      collect(
        native(),
        request({
          providerOptions: {
            anthropic: { output_config: { format: { type: 'json_schema', schema: {} } } },
          },
        }),
      ),
    );
    expect(err.details).toMatchObject({ providerId: 'anthropic', option: 'output_config.format' });
    expect(err.message).toContain('providerOptions.anthropic.output_config.format');
    expect(err.message).toContain('run({ output })');
  });

  it('refuses a schema the SDK transform cannot take, before any request', async () => {
    const err = await refusal(
      collect(
        native(),
        request({ output: { ...OUTPUT, schema: { type: 'object', properties: { any: {} } } } }),
      ),
    );
    expect(err.details).toMatchObject({ option: 'output.schema' });
    expect(err.cause).toBeInstanceOf(Error);
  });
});

describe("anthropic typed answer, structuredOutput: 'tool'", () => {
  const answerTool = {
    name: 'final_answer',
    description: 'The book found.',
    input_schema: transformJSONSchema(SCHEMA),
  };

  it('forces the answer tool when the run has no tools, and streams its input as text', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .toolUse('toolu_a', 'final_answer', [ANSWER.slice(0, 9), ANSWER.slice(9)])
        .stop('tool_use', { input: 9, output: 7 }),
    });
    const parts = await collect(viaTool(), request({ tools: [] }));
    const body = sent();
    expect(body['tools']).toEqual([{ ...answerTool, cache_control: { type: 'ephemeral' } }]);
    expect(body['tool_choice']).toEqual({ type: 'tool', name: 'final_answer' });
    expect(body).not.toHaveProperty('output_config');
    expect(parts).toEqual([
      { type: 'text-delta', text: ANSWER.slice(0, 9) },
      { type: 'text-delta', text: ANSWER.slice(9) },
      expect.objectContaining({ type: 'finish', stopReason: 'stop' }),
    ]);
  });

  it('offers the answer tool after the run tools with tool_choice any; real calls stay calls', async () => {
    server.script(
      {
        kind: 'sse',
        events: new AnthropicStream()
          .toolUse('toolu_w', 'get_weather', ['{"city":"Oslo"}'])
          .stop('tool_use', { input: 9, output: 7 }),
      },
      {
        kind: 'json',
        body: {
          id: 'msg_b',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'tool_use', id: 'toolu_b', name: 'final_answer', input: { a: 1 } }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 4, output_tokens: 9 },
        },
      },
    );
    const streamed = await collect(viaTool(), request());
    const body = sent();
    expect((body['tools'] as { name: string }[]).map((t) => t.name)).toEqual([
      'get_weather',
      'final_answer',
    ]);
    expect((body['tools'] as unknown[])[1]).toEqual({
      ...answerTool,
      cache_control: { type: 'ephemeral' },
    });
    expect(body['tool_choice']).toEqual({ type: 'any' });
    expect(streamed.filter((p) => p.type !== 'finish')).toEqual([
      {
        type: 'tool-call',
        callId: 'toolu_w',
        name: 'get_weather',
        argumentsText: '{"city":"Oslo"}',
      },
    ]);
    expect(streamed.at(-1)).toMatchObject({ type: 'finish', stopReason: 'tool-calls' });

    const buffered = await collect(viaTool(), request({ stream: false }));
    expect(buffered).toEqual([
      { type: 'text-delta', text: '{"a":1}' },
      expect.objectContaining({ type: 'finish', stopReason: 'stop' }),
    ]);
  });

  it("leaves tool_choice to the request's toolChoice, and unforced with thinking on", async () => {
    server.script(textAnswer([ANSWER]), textAnswer([ANSWER]));
    await collect(viaTool(), request({ toolChoice: 'auto' }));
    await collect(viaTool(), request({ reasoningEffort: 'low' }));
    expect(sent(0)['tool_choice']).toEqual({ type: 'auto' });
    expect(sent(1)).not.toHaveProperty('tool_choice');
    expect(sent(1)['thinking']).toMatchObject({ type: 'enabled' });
  });

  it('keeps a refusal after an answer call a content-filter finish', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .toolUse('toolu_a', 'final_answer', ['{"title":'])
        .stop('refusal', { input: 9, output: 3 }),
    });
    const parts = await collect(viaTool(), request());
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'content-filter' });
  });

  it('refuses providerOptions that set tool_choice, and an answer named like a tool', async () => {
    const choice = await refusal(
      collect(
        viaTool(),
        request({ providerOptions: { anthropic: { tool_choice: { type: 'auto' } } } }),
      ),
    );
    expect(choice.details).toMatchObject({ option: 'tool_choice' });
    expect(choice.message).toContain('run({ output })');
    const clash = await refusal(
      collect(viaTool(), request({ output: { ...OUTPUT, name: 'get_weather' } })),
    );
    expect(clash.details).toMatchObject({ option: 'output.name' });
  });
});
