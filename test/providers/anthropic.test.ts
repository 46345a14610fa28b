import { Anthropic } from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, tool } from '../../src/index.js';
import { MusterError } from '../../src/errors/index.js';
import { anthropic } from '../../src/providers/anthropic.js';
import { AnthropicStream, anthropicErrorBody } from '../fixtures/anthropic-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { collect as collectRun, ofType } from '../support/run-helpers.js';
import {
  TEST_API_KEY,
  collect,
  expectNoSecret,
  failure,
  userRequest,
} from './provider-test-kit.js';

// anthropic() against a loopback server speaking the Messages streaming format; the official
// @anthropic-ai/sdk does the HTTP and the SSE parsing.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const client = () => new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.url });
/** The parts of a sent Messages body these tests read. */
interface SentBody {
  readonly tools: readonly { readonly name: string; readonly cache_control?: unknown }[];
  readonly system: unknown;
  readonly messages: readonly { readonly content: readonly Record<string, unknown>[] }[];
  readonly thinking?: unknown;
  readonly max_tokens: number;
}
const body = (i: number) => server.requests[i]!.body as unknown as SentBody;

describe('anthropic prompt caching', () => {
  it('marks the tools and system prefix with cache_control on both turns and reports cache tokens', async () => {
    server.script(
      {
        kind: 'sse',
        events: new AnthropicStream('msg_1', { input: 12, output: 1, cacheWrite: 1500 })
          .toolUse('toolu_1', 'lookup', ['{"q":"a"}'])
          .stop('tool_use', { input: 12, output: 9, cacheWrite: 1500 }),
      },
      {
        kind: 'sse',
        events: new AnthropicStream('msg_2', { input: 30, output: 1, cacheRead: 1500 })
          .text(['Done.'])
          .stop('end_turn', { input: 30, output: 3, cacheRead: 1500 }),
      },
    );
    const agent = createAgent({
      model: anthropic({ client: client() }),
      modelName: 'claude-test',
      system: 'You are a careful librarian.',
      tools: [
        tool({
          name: 'lookup',
          description: 'Looks a thing up.',
          input: z.object({ q: z.string() }),
          execute: ({ q }) => `found ${q}`,
        }),
        tool({
          name: 'shelve',
          description: 'Shelves a book.',
          input: z.object({ id: z.string() }),
          execute: () => 'ok',
        }),
      ],
      policy: { allow: ['lookup', 'shelve'] },
    });
    const run = await collectRun(agent.run({ input: 'Find a' }));
    expect(run.error).toBeUndefined();
    for (const i of [0, 1]) {
      const sent = body(i);
      expect(sent.tools.map((t) => t.name)).toEqual(['lookup', 'shelve']);
      expect(sent.tools[0]!.cache_control).toBeUndefined();
      expect(sent.tools[1]!.cache_control).toEqual({ type: 'ephemeral' });
      expect(sent.system).toEqual([
        {
          type: 'text',
          text: 'You are a careful librarian.',
          cache_control: { type: 'ephemeral' },
        },
      ]);
      expect(sent.messages.at(-1)!.content.at(-1)!['cache_control']).toEqual({ type: 'ephemeral' });
    }
    // The prefix is byte-for-byte the same on both turns, so the second reads it from cache.
    expect(JSON.stringify(body(1).tools)).toBe(JSON.stringify(body(0).tools));
    expect(JSON.stringify(body(1).system)).toBe(JSON.stringify(body(0).system));
    const usage = ofType(run.events, 'model.completed').map((e) => e.usage);
    expect(usage[0]).toMatchObject({ inputTokens: 1512, cacheWriteInputTokens: 1500 });
    expect(usage[1]).toMatchObject({ inputTokens: 1530, cachedInputTokens: 1500 });
    expect(ofType(run.events, 'session.completed')[0]?.usage).toMatchObject({
      cachedInputTokens: 1500,
      cacheWriteInputTokens: 1500,
      outputTokens: 12,
    });
  });

  it('sends no cache_control with promptCaching: false', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream().text(['Hi']).stop('end_turn', { input: 5, output: 1 }),
    });
    await collect(
      anthropic({ client: client(), promptCaching: false }),
      userRequest({ modelName: 'claude-test' }),
    );
    expect(JSON.stringify(body(0))).not.toContain('cache_control');
  });
});

describe('anthropic thinking', () => {
  it('maps reasoningEffort to a thinking budget and sends redacted thinking back unchanged', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .thinking(['Let me ', 'think.'], 'SIG-A')
        .redactedThinking('REDACTED-DATA')
        .text(['Answer.'])
        .stop('end_turn', { input: 5, output: 20 }),
    });
    const parts = await collect(
      anthropic({ client: client() }),
      userRequest({ modelName: 'claude-test', reasoningEffort: 'low' }),
    );
    expect(body(0).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body(0).max_tokens).toBeGreaterThan(2048);
    expect(parts.filter((p) => p.type === 'reasoning')).toEqual([
      {
        type: 'reasoning',
        text: 'Let me think.',
        providerMetadata: { anthropic: { signature: 'SIG-A' } },
      },
      {
        type: 'reasoning',
        text: '',
        providerMetadata: { anthropic: { redactedData: 'REDACTED-DATA' } },
      },
    ]);
    server.script({
      kind: 'sse',
      events: new AnthropicStream().text(['ok']).stop('end_turn', { input: 5, output: 1 }),
    });
    await collect(
      anthropic({ client: client() }),
      userRequest({
        modelName: 'claude-test',
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Q' }] },
          {
            role: 'assistant',
            content: parts.flatMap((p) =>
              p.type === 'reasoning'
                ? [
                    {
                      type: 'reasoning' as const,
                      text: p.text,
                      providerMetadata: p.providerMetadata!,
                    },
                  ]
                : [],
            ),
          },
          { role: 'user', content: [{ type: 'text', text: 'More' }] },
        ],
      }),
    );
    expect(body(1).messages[1]!.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'SIG-A' },
      { type: 'redacted_thinking', data: 'REDACTED-DATA' },
    ]);
  });
});

describe('anthropic answers and failures', () => {
  it('maps stop reasons, toolChoice and a buffered answer', async () => {
    server.script({
      kind: 'json',
      body: {
        id: 'msg_b',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'text', text: 'Cut', citations: null }],
        stop_reason: 'max_tokens',
        stop_sequence: null,
        usage: {
          input_tokens: 4,
          output_tokens: 9,
          cache_read_input_tokens: 2,
          cache_creation_input_tokens: null,
        },
      },
    });
    const parts = await collect(
      anthropic({ client: client() }),
      userRequest({
        modelName: 'claude-test',
        stream: false,
        toolChoice: 'required',
        maxOutputTokens: 9,
      }),
    );
    expect(body(0)).toMatchObject({ stream: false, max_tokens: 9, tool_choice: { type: 'any' } });
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Cut' },
      {
        type: 'finish',
        stopReason: 'length',
        usage: { inputTokens: 6, outputTokens: 9, totalTokens: 15, cachedInputTokens: 2 },
      },
    ]);
  });

  it('a mid-stream overloaded_error is a retryable ModelError without the key', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .partialText('Hal')
        .ping()
        .error('overloaded_error', `Overloaded ${TEST_API_KEY}`),
    });
    const err = await failure(
      anthropic({ client: client() }),
      userRequest({ modelName: 'claude-test' }),
    );
    expect(err).toMatchObject({
      code: 'MODEL_REQUEST_FAILED',
      isRetryable: true,
      details: { errorType: 'overloaded_error' },
    });
    expectNoSecret(err);
  });

  it.each([
    [529, 'overloaded_error', true],
    [500, 'api_error', true],
    [400, 'invalid_request_error', false],
    [401, 'authentication_error', false],
  ])('HTTP %i (%s) has isRetryable %s and names no key', async (status, type, retryable) => {
    server.script({
      kind: 'json',
      status,
      body: anthropicErrorBody(type, `bad key ${TEST_API_KEY}`),
    });
    const err = await failure(
      anthropic({ client: client() }),
      userRequest({ modelName: 'claude-test' }),
    );
    expect(err).toMatchObject({ status, isRetryable: retryable, details: { errorType: type } });
    expectNoSecret(err);
  });

  it('refuses providerOptions that would set what the request owns, before any request', async () => {
    let caught: unknown;
    try {
      await collect(
        anthropic({ client: client() }),
        userRequest({
          modelName: 'claude-test',
          providerOptions: { anthropic: { max_tokens: 5 } },
        }),
      );
    } catch (err) {
      caught = err;
    }
    expect(MusterError.isInstance(caught) && caught.code).toBe('INVALID_CONFIGURATION');
    expect(server.requests).toHaveLength(0);
  });

  it('fails without a key before any request', async () => {
    const saved = process.env['ANTHROPIC_API_KEY'];
    delete process.env['ANTHROPIC_API_KEY'];
    try {
      const err = await failure(
        anthropic({ baseURL: server.url }),
        userRequest({ modelName: 'claude-test' }),
      );
      expect(err.message).toContain('ANTHROPIC_API_KEY');
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env['ANTHROPIC_API_KEY'] = saved;
    }
  });
});
