import { OpenAI } from 'openai';
import { expect } from 'vitest';
import { ModelError } from '../../src/errors/index.js';
import type { ModelClientV1, ModelPart, ModelRequest } from '../../src/model/index.js';
import type { ModelMessage } from '../../src/model/index.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';

/** The API key of every test client; it must never show up in an error. */
export const TEST_API_KEY = 'sk-test';

/** A client on the wire server that surfaces failures at once (no retries). */
export function testClient(server: OpenAIWireServer): OpenAI {
  return new OpenAI({ apiKey: TEST_API_KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

/** A request with one user message, one tool and streaming on. */
export function userRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    modelName: 'gpt-test',
    system: 'You are terse.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] }],
    tools: [
      {
        name: 'get_weather',
        description: 'Current weather of a city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ],
    stream: true,
    ...overrides,
  };
}

/**
 * A finished agent turn: the user asked, the model reasoned, spoke and called two tools, and
 * both results came back (the second with an image).
 */
export const MULTI_TURN_TRANSCRIPT: readonly ModelMessage[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Compare the weather.' },
      { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' },
      { type: 'image', url: 'https://example.com/map.png', mimeType: 'image/png' },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'reasoning',
        text: 'Need both cities.',
        providerMetadata: { openai: { itemId: 'rs_1', encryptedContent: 'enc_1' } },
      },
      { type: 'text', text: 'Checking both.' },
      {
        type: 'tool-call',
        callId: 'call_paris',
        name: 'get_weather',
        arguments: { city: 'Paris' },
        providerMetadata: { openai: { itemId: 'fc_paris' } },
      },
      {
        type: 'tool-call',
        callId: 'call_rome',
        name: 'get_weather',
        arguments: '{"city":"Rome"}',
        providerMetadata: { openai: { itemId: 'fc_rome' } },
      },
    ],
  },
  {
    role: 'tool',
    callId: 'call_paris',
    toolName: 'get_weather',
    content: 'Paris: 18C',
    isError: false,
  },
  {
    role: 'tool',
    callId: 'call_rome',
    toolName: 'get_weather',
    content: 'Rome: 24C, radar attached',
    isError: false,
    media: [{ type: 'image', data: 'cmFkYXI=', mimeType: 'image/jpeg' }],
  },
];

/** Runs one model turn and returns every part it yielded. */
export async function collect(
  model: ModelClientV1,
  request: ModelRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of model.generate(request, { signal })) parts.push(part);
  return parts;
}

/** The concatenated text of the `text-delta` parts. */
export function textOf(parts: readonly ModelPart[]): string {
  return parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
}

/** Runs a turn that must fail and returns its `ModelError`. */
export async function failure(model: ModelClientV1, request: ModelRequest): Promise<ModelError> {
  const err: unknown = await collect(model, request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelError);
  return err as ModelError;
}

/** Asserts that nothing a host may log or show carries the API key. */
export function expectNoSecret(err: ModelError): void {
  expect(err.message).not.toContain(TEST_API_KEY);
  expect(JSON.stringify(err)).not.toContain(TEST_API_KEY);
  expect(JSON.stringify(err.details)).not.toContain(TEST_API_KEY);
  expect(String(err)).not.toContain(TEST_API_KEY);
}
