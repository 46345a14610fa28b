import { createAnthropic } from '@ai-sdk/anthropic';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelMessage } from '../../src/index.js';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { toAiSdkCallOptions } from '../../src/providers/ai-sdk-prompt.js';
import { toAnthropicRequestBody } from '../../src/providers/anthropic-mapping.js';
import { toolCallInput } from '../../src/providers/kit/index.js';
import { AnthropicStream } from '../fixtures/anthropic-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { failure, userRequest } from './provider-test-kit.js';

// Past tool calls are sent back with their parsed arguments as they are (no stringify and
// parse per request), through one kit helper; vendor error types a retry may cure are one set.

const args = { city: 'Oslo', days: [1, 2] };
const transcript: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', callId: 'c1', name: 'get_weather', arguments: args },
      { type: 'tool-call', callId: 'c2', name: 'get_weather', arguments: '{"city":"Rome"}' },
      { type: 'tool-call', callId: 'c3', name: 'get_weather', arguments: 'not json' },
    ],
  },
  { role: 'tool', callId: 'c1', toolName: 'get_weather', content: '4C', isError: false },
  { role: 'tool', callId: 'c2', toolName: 'get_weather', content: '19C', isError: false },
  { role: 'tool', callId: 'c3', toolName: 'get_weather', content: 'bad', isError: true },
];

describe('tool call input', () => {
  it('the kit helper keeps objects, parses object text, and sends {} for anything else', () => {
    const part = (a: unknown) => ({
      type: 'tool-call' as const,
      callId: 'x',
      name: 'n',
      arguments: a,
    });
    expect(toolCallInput(part(args))).toBe(args);
    expect(toolCallInput(part('{"a":1}'))).toEqual({ a: 1 });
    expect(toolCallInput(part('[1]'))).toEqual({});
    expect(toolCallInput(part('nope'))).toEqual({});
    expect(toolCallInput(part([1]))).toEqual({});
    expect(toolCallInput(part(undefined))).toEqual({});
  });

  it('Anthropic sends the transcript arguments object itself', () => {
    const body = toAnthropicRequestBody(
      userRequest({ modelName: 'claude-test', messages: transcript }),
      'claude-test',
      { promptCaching: false },
    );
    const inputs = (body.messages[1]!.content as { type: string; input?: unknown }[])
      .filter((b) => b.type === 'tool_use')
      .map((b) => b.input);
    expect(inputs[0]).toBe(args);
    expect(inputs.slice(1)).toEqual([{ city: 'Rome' }, {}]);
  });

  it('the AI SDK prompt sends the same inputs', () => {
    const call = toAiSdkCallOptions(
      userRequest({ modelName: 'm', messages: transcript }),
      'anthropic',
      new AbortController().signal,
    );
    const inputs = call.prompt
      .flatMap((m) => (m.role === 'assistant' ? m.content : []))
      .flatMap((p) => (p.type === 'tool-call' ? [p.input] : []));
    expect(inputs[0]).toBe(args);
    expect(inputs.slice(1)).toEqual([{ city: 'Rome' }, {}]);
  });
});

describe('retryable vendor error types', () => {
  let server: OpenAIWireServer;
  beforeAll(async () => {
    server = await startOpenAIWireServer();
  });
  afterEach(() => server.reset());
  afterAll(() => server.close());

  it.each([
    ['timeout_error', true],
    ['overloaded_error', true],
    ['invalid_request_error', false],
  ])('an in-stream %s through the AI SDK has isRetryable %s', async (type, retryable) => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream().partialText('Hal').error(type, 'failed'),
    });
    const model = fromAiSdk(
      createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'sk-test' })('claude-test'),
    );
    const err = await failure(model, userRequest({ modelName: 'claude-test' }));
    expect(err).toMatchObject({ isRetryable: retryable, details: { errorType: type } });
  });
});
