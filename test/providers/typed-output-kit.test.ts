import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, MemorySessionStore, tool } from '../../src/index.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { MODELS_UNDER_TEST } from './model-clients.js';
import type { ModelUnderTest } from './model-clients.js';

// Typed final answers (SPEC 15.4) through every model client, on the vendors' own libraries
// against a loopback server speaking their wire format: what reaches the wire, and the value
// that comes back.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

/** Optional fields, a record and a union: none of them goes to a strict mode as it is. */
const Report = z.object({
  city: z.string(),
  note: z.string().optional(),
  readings: z.record(z.string(), z.number()),
  level: z.union([z.literal('low'), z.number()]),
});

/** The strict form Muster makes of {@link Report}. */
const STRICT_REPORT = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    note: { type: ['string', 'null'] },
    readings: {
      type: 'array',
      items: {
        type: 'object',
        properties: { key: { type: 'string' }, value: { type: 'number' } },
        required: ['key', 'value'],
        additionalProperties: false,
      },
    },
    level: { anyOf: [{ type: 'string', const: 'low' }, { type: 'number' }] },
  },
  required: ['city', 'note', 'readings', 'level'],
  additionalProperties: false,
};

type Body = Record<string, unknown>;
const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v as Body | undefined)?.[k], value);

/** The structured-output parameters each client sends, read from its request body. */
const WIRE: Record<string, (body: Body) => unknown> = {
  openaiChat: (body) => body.response_format,
  openaiResponses: (body) => at(body, 'text', 'format'),
  anthropic: (body) => body.output_config,
  'fromAiSdk(@ai-sdk/openai-compatible)': (body) => body.response_format,
  'fromAiSdk(@ai-sdk/anthropic)': (body) => body.output_config,
};

/** What each client must send for {@link STRICT_REPORT}, parameter by parameter. */
function expectedWire(subject: ModelUnderTest): unknown {
  const name = 'weather_report';
  const description = 'The weather of one city.';
  switch (subject.name) {
    case 'openaiChat':
      return {
        type: 'json_schema',
        json_schema: { name, description, schema: STRICT_REPORT, strict: true },
      };
    case 'openaiResponses':
      return { type: 'json_schema', name, description, schema: STRICT_REPORT, strict: true };
    case 'fromAiSdk(@ai-sdk/openai-compatible)':
      return {
        type: 'json_schema',
        json_schema: { name, description, schema: STRICT_REPORT, strict: true },
      };
    case 'fromAiSdk(@ai-sdk/anthropic)':
      // the AI SDK's Anthropic provider sends the schema it is given
      return { format: { type: 'json_schema', schema: STRICT_REPORT } };
    default:
      // Anthropic's structured outputs take the subset its SDK's transform produces
      return { format: { type: 'json_schema', schema: transformJSONSchema(STRICT_REPORT) } };
  }
}

function readingsTool(seen: string[]) {
  return tool({
    name: 'read_sensors',
    description: 'Reads the sensors of a city.',
    input: z.object({ city: z.string() }),
    execute: ({ city }) => {
      seen.push(city);
      return `${city}: temp 4, wind 12`;
    },
  });
}

const json = (value: unknown) => [JSON.stringify(value)];

describe.each(MODELS_UNDER_TEST)('$name', (subject) => {
  const { dialect } = subject;

  function agent(seen: string[]) {
    return createAgent({
      model: subject.make(server),
      modelName: subject.modelName,
      tools: [readingsTool(seen)],
      policy: { allow: ['read_sensors'] },
      sessionStore: new MemorySessionStore(),
    });
  }

  it('calls the tool first, then sends its native strict request and gets the typed value', async () => {
    server.script(
      dialect.reasoningAndCalls('Read first.', [
        { id: 'call_1', name: 'read_sensors', args: ['{"city":"Oslo"}'] },
      ]),
      dialect.text(
        json({
          city: 'Oslo',
          note: null,
          readings: [
            { key: 'temp', value: 4 },
            { key: 'wind', value: 12 },
          ],
          level: 'low',
        }),
      ),
    );
    const seen: string[] = [];
    const result = await agent(seen).send('Report on Oslo.', {
      output: { schema: Report, name: 'weather_report', description: 'The weather of one city.' },
    });
    expect(seen).toEqual(['Oslo']);
    expect(result.output).toEqual({
      city: 'Oslo',
      readings: { temp: 4, wind: 12 },
      level: 'low',
    });
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(WIRE[subject.name]!(request.body)).toEqual(expectedWire(subject));
      expect(dialect.read(request.body).toolNames).toContain('read_sensors');
    }
  });

  it('the host schema still refuses a wrong type: one repair turn, then the fixed answer', async () => {
    const wrong = { city: 'Oslo', note: 'cold', readings: [], level: 'high' };
    const fixed = { city: 'Oslo', note: 'cold', readings: [], level: 3 };
    server.script(dialect.text(json(wrong)), dialect.text(json(fixed)));
    const result = await agent([]).send('Report on Oslo.', { output: Report });
    expect(result.output).toEqual({ city: 'Oslo', note: 'cold', readings: {}, level: 3 });
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body)).toContain(
      "does not match the required output schema 'final_answer'",
    );
  });
});
