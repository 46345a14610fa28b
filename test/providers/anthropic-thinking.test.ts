import { Anthropic } from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/index.js';
import { anthropic } from '../../src/providers/anthropic.js';
import { AnthropicStream } from '../fixtures/anthropic-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { TEST_API_KEY, collect, userRequest } from './provider-test-kit.js';

// Thinking requests the Messages API would reject are refused before any request reaches
// the loopback server; the ones it accepts are sent with a budget below max_tokens.

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

const model = () =>
  anthropic({ client: new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.url }) });
const tools: ModelRequest['tools'] = [
  { name: 'lookup', description: 'Looks up.', inputSchema: { type: 'object', properties: {} } },
];

async function refusal(overrides: Partial<ModelRequest>): Promise<unknown> {
  try {
    await collect(model(), userRequest({ modelName: 'claude-test', tools, ...overrides }));
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('anthropic thinking limits', () => {
  it.each([1, 512, 1024])(
    'refuses thinking with maxOutputTokens %i before any request',
    async (max) => {
      const err = await refusal({ reasoningEffort: 'low', maxOutputTokens: max });
      expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION' });
      expect((err as Error).message).toContain('maxOutputTokens');
      expect(server.requests).toHaveLength(0);
    },
  );

  it.each<[string, ModelRequest['toolChoice']]>([
    ['required', 'required'],
    ['a named tool', { type: 'tool', name: 'lookup' }],
  ])('refuses thinking with toolChoice %s before any request', async (_what, toolChoice) => {
    const err = await refusal({ reasoningEffort: 'medium', toolChoice });
    expect(err).toMatchObject({ code: 'INVALID_CONFIGURATION' });
    expect((err as Error).message).toContain('toolChoice');
    expect(server.requests).toHaveLength(0);
  });

  it.each<[number, ModelRequest['toolChoice']]>([
    [1025, 'auto'],
    [4000, 'none'],
  ])(
    'sends thinking with maxOutputTokens %i and toolChoice %s, budget below max_tokens',
    async (max, toolChoice) => {
      server.script({
        kind: 'sse',
        events: new AnthropicStream().text(['ok']).stop('end_turn', { input: 1, output: 1 }),
      });
      await collect(
        model(),
        userRequest({
          modelName: 'claude-test',
          tools,
          reasoningEffort: 'low',
          maxOutputTokens: max,
          toolChoice,
        }),
      );
      const sent = server.requests[0]!.body as {
        max_tokens: number;
        thinking: { budget_tokens: number };
      };
      expect(sent.max_tokens).toBe(max);
      expect(sent.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
      expect(sent.thinking.budget_tokens).toBeLessThan(max);
    },
  );
});
