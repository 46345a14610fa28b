import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelClientV1, ModelOutputFormat, ModelRequest } from '../../src/model/index.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import type { OpenAIProviderOptions } from '../../src/providers/openai.js';
import { ResponsesStream, chatChunk, chatUsageAndDone } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer, WireTurn } from '../fixtures/openai-wire-server.js';
import { collect, testClient, textOf, userRequest } from './provider-test-kit.js';
import { CHAT, RESPONSES } from './wire-dialects.js';
import type { WireDialect } from './wire-dialects.js';

// A typed final answer (`ModelRequest.output`) on the wire of both OpenAI APIs: the exact
// `json_schema` format, next to the tools, and never replaced by `providerOptions.openai`.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** A schema in the strict form the agent makes. */
const STRICT_SCHEMA = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    temp_c: { type: 'number' },
    note: { type: ['string', 'null'] },
  },
  required: ['city', 'temp_c', 'note'],
  additionalProperties: false,
};

/** A schema the agent could not make strict (a record). */
const LOOSE_SCHEMA = {
  type: 'object',
  properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } },
};

const STRICT_OUTPUT: ModelOutputFormat = {
  name: 'weather_report',
  description: 'The weather of one city.',
  schema: STRICT_SCHEMA,
  strict: true,
};

const LOOSE_OUTPUT: ModelOutputFormat = { name: 'tag_map', schema: LOOSE_SCHEMA, strict: false };

type Json = Record<string, unknown>;

/** How one API carries the output format, spelled out literally. */
interface ApiCase {
  readonly create: (options: OpenAIProviderOptions) => ModelClientV1;
  readonly dialect: WireDialect;
  /** The top-level body field that holds the format. */
  readonly field: 'response_format' | 'text';
  /** The object holding `name`, `schema`, `strict` and `description`. */
  readonly schemaConfig: (body: Json) => Json;
  /** The exact field sent for `STRICT_OUTPUT`. */
  readonly strictField: Json;
  /** The exact field sent for `LOOSE_OUTPUT`. */
  readonly looseField: Json;
  /** A `providerOptions.openai` entry that tries to set the format, and the option refused. */
  readonly override: { readonly entry: Json; readonly option: string };
  /** A streamed refusal. */
  readonly refusal: (deltas: readonly string[]) => WireTurn;
}

const apis: ReadonlyArray<[string, ApiCase]> = [
  [
    'openai.chat',
    {
      create: openaiChat,
      dialect: CHAT,
      field: 'response_format',
      schemaConfig: (body) => (body['response_format'] as Json)['json_schema'] as Json,
      strictField: {
        type: 'json_schema',
        json_schema: {
          name: 'weather_report',
          description: 'The weather of one city.',
          schema: STRICT_SCHEMA,
          strict: true,
        },
      },
      looseField: {
        type: 'json_schema',
        json_schema: { name: 'tag_map', schema: LOOSE_SCHEMA, strict: false },
      },
      override: { entry: { response_format: { type: 'json_object' } }, option: 'response_format' },
      refusal: (deltas) => ({
        kind: 'sse',
        events: [
          chatChunk({ role: 'assistant', content: null, refusal: '' }),
          ...deltas.map((refusal) => chatChunk({ refusal })),
          chatChunk({}, 'stop'),
          ...chatUsageAndDone({ prompt: 10, completion: 4 }),
        ],
      }),
    },
  ],
  [
    'openai.responses',
    {
      create: openaiResponses,
      dialect: RESPONSES,
      field: 'text',
      schemaConfig: (body) => (body['text'] as Json)['format'] as Json,
      strictField: {
        format: {
          type: 'json_schema',
          name: 'weather_report',
          description: 'The weather of one city.',
          schema: STRICT_SCHEMA,
          strict: true,
        },
      },
      looseField: {
        format: { type: 'json_schema', name: 'tag_map', schema: LOOSE_SCHEMA, strict: false },
      },
      override: { entry: { text: { format: { type: 'text' } } }, option: 'text.format' },
      refusal: (deltas) => ({ kind: 'sse', events: responsesRefusal(deltas) }),
    },
  ],
];

/** A Responses stream whose message holds one `refusal` content part. */
function responsesRefusal(deltas: readonly string[]) {
  const at = { item_id: 'msg_r', output_index: 0, content_index: 0 };
  const refusal = deltas.join('');
  const item = { id: 'msg_r', type: 'message', role: 'assistant' };
  const stream = new ResponsesStream('resp_refusal').emit('response.output_item.added', {
    output_index: 0,
    item: { ...item, status: 'in_progress', content: [] },
  });
  for (const delta of deltas) stream.emit('response.refusal.delta', { ...at, delta });
  return stream
    .emit('response.refusal.done', { ...at, refusal })
    .emit('response.output_item.done', {
      output_index: 0,
      item: { ...item, status: 'completed', content: [{ type: 'refusal', refusal }] },
    })
    .completed({ input: 10, output: 4 });
}

describe.each(apis)('%s typed final answer', (provider, api) => {
  const model = () => api.create({ client: testClient(server) });

  /** Runs one streamed turn on a scripted text answer; returns the body sent and the parts. */
  async function turn(request: ModelRequest, answer: readonly string[] = ['{}']) {
    server.script(api.dialect.text(answer));
    const before = server.requests.length;
    const parts = await collect(model(), request);
    expect(server.requests).toHaveLength(before + 1);
    return { body: server.requests[before]?.body ?? {}, parts };
  }

  it('sends the strict output as a json_schema format, parameter by parameter', async () => {
    const { body } = await turn(userRequest({ output: STRICT_OUTPUT }));
    const config = api.schemaConfig(body);
    expect(config['name']).toBe('weather_report');
    expect(config['description']).toBe('The weather of one city.');
    expect(config['schema']).toEqual(STRICT_SCHEMA);
    expect(config['strict']).toBe(true);
    expect(body[api.field]).toEqual(api.strictField);
  });

  it('sends strict: false and no description for a non-strict output without one', async () => {
    const { body } = await turn(userRequest({ output: LOOSE_OUTPUT }));
    const config = api.schemaConfig(body);
    expect(config['strict']).toBe(false);
    expect(config).not.toHaveProperty('description');
    expect(config['schema']).toEqual(LOOSE_SCHEMA);
    expect(body[api.field]).toEqual(api.looseField);
  });

  it('sends the tools and the output format in the same request', async () => {
    const { body } = await turn(userRequest({ output: STRICT_OUTPUT, toolChoice: 'auto' }));
    expect(api.dialect.read(body).toolNames).toEqual(['get_weather']);
    expect(body['tool_choice']).toBe('auto');
    expect(body[api.field]).toEqual(api.strictField);
  });

  it('streams the JSON answer back as text-delta parts that parse to the value', async () => {
    const answer = ['{"city":"Par', 'is","temp_c":1', '8.5,"note":null}'];
    const { body, parts } = await turn(userRequest({ output: STRICT_OUTPUT }), answer);
    expect(body[api.field]).toEqual(api.strictField);
    const texts = parts.filter((p) => p.type === 'text-delta');
    expect(texts).toEqual(answer.map((text) => ({ type: 'text-delta', text })));
    expect(parts.map((p) => p.type)).toEqual([...answer.map(() => 'text-delta'), 'finish']);
    expect(JSON.parse(textOf(parts))).toEqual({ city: 'Paris', temp_c: 18.5, note: null });
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'stop' });
  });

  it('sends the format only on the requests that set output', async () => {
    const asked = await turn(userRequest({ output: STRICT_OUTPUT }));
    expect(asked.body[api.field]).toEqual(api.strictField);
    const free = await turn(userRequest());
    expect(free.body).not.toHaveProperty('response_format');
    expect(free.body).not.toHaveProperty('text');
  });

  it('refuses a providerOptions.openai entry that would replace the format, before sending', async () => {
    const request = userRequest({
      output: STRICT_OUTPUT,
      providerOptions: { openai: api.override.entry },
    });
    const err: unknown = await collect(model(), request).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { provider, providerId: 'openai', option: api.override.option },
    });
    expect((err as Error).message).toContain(`providerOptions.openai.${api.override.option}`);
    expect((err as Error).message).toContain('run({ output })');
    expect(server.requests).toHaveLength(0);
    // Without `output` the same entry is the host's own format, sent as given.
    const { body } = await turn(userRequest({ providerOptions: { openai: api.override.entry } }));
    expect(body[api.field]).toEqual(api.override.entry[api.field]);
  });

  it('streams a refusal as text, so answer validation reports it', async () => {
    server.script(api.refusal(["I can't ", 'help with that.']));
    const parts = await collect(model(), userRequest({ output: STRICT_OUTPUT }));
    expect(server.requests[0]?.body[api.field]).toEqual(api.strictField);
    expect(textOf(parts)).toBe("I can't help with that.");
    expect(parts.at(-1)).toMatchObject({ type: 'finish', stopReason: 'stop' });
  });

  it('sends the same format on a buffered (non-streamed) request', async () => {
    server.script(
      api.field === 'response_format'
        ? { kind: 'json', body: chatBody('{"city":"Oslo","temp_c":3,"note":null}') }
        : { kind: 'json', body: responsesBody('{"city":"Oslo","temp_c":3,"note":null}') },
    );
    const parts = await collect(model(), userRequest({ output: STRICT_OUTPUT, stream: false }));
    expect(server.requests[0]?.body['stream']).not.toBe(true);
    expect(server.requests[0]?.body[api.field]).toEqual(api.strictField);
    expect(JSON.parse(textOf(parts))).toEqual({ city: 'Oslo', temp_c: 3, note: null });
  });
});

function chatBody(content: string): Json {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
  };
}

function responsesBody(text: string): Json {
  const stream = new ResponsesStream('resp_b').text('msg_b', [text]);
  const done = stream.completed({ input: 5, output: 5 }).at(-1)?.data as Json;
  return done['response'] as Json;
}

describe('openai.responses text options with a typed final answer', () => {
  const model = () => openaiResponses({ client: testClient(server) });

  it('merges the format into a text object from providerOptions (verbosity)', async () => {
    server.script(RESPONSES.text(['{}']));
    await collect(
      model(),
      userRequest({
        output: LOOSE_OUTPUT,
        providerOptions: { openai: { text: { verbosity: 'low' } } },
      }),
    );
    expect(server.requests[0]?.body['text']).toEqual({
      verbosity: 'low',
      format: { type: 'json_schema', name: 'tag_map', schema: LOOSE_SCHEMA, strict: false },
    });
  });

  it('refuses a text entry that is not an object when output is set', async () => {
    const request = userRequest({
      output: LOOSE_OUTPUT,
      providerOptions: { openai: { text: 'low' } },
    });
    await expect(collect(model(), request)).rejects.toMatchObject({
      code: 'INVALID_CONFIGURATION',
      details: { provider: 'openai.responses', option: 'text' },
    });
    expect(server.requests).toHaveLength(0);
  });
});
