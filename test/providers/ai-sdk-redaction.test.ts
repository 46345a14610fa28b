import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { AnthropicStream } from '../fixtures/anthropic-wire-events.js';
import { apiErrorBody } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { failure, userRequest } from './provider-test-kit.js';

// Errors of fromAiSdk() go through the package's redactor like the other providers': a
// canary key the server echoes in an HTTP error body or an in-stream error event never
// reaches the Muster error (real AI SDK providers against the loopback wire server).

const CANARY = 'sk-canary-7f3a9c2e5b1d4f60';

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => server.reset());
afterAll(() => server.close());

function expectNoCanary(err: Error): void {
  expect(err.message).not.toContain(CANARY);
  expect(JSON.stringify(err)).not.toContain(CANARY);
  expect(String(err)).not.toContain(CANARY);
  expect(err.message).toContain('[redacted]');
}

describe('fromAiSdk error redaction', () => {
  it('an HTTP error whose message echoes the key is redacted', async () => {
    server.script({
      kind: 'json',
      status: 401,
      body: apiErrorBody(`Incorrect API key provided: ${CANARY}`, 'invalid_request_error', null),
    });
    const model = fromAiSdk(
      createOpenAICompatible({ name: 'local', baseURL: `${server.url}/v1`, apiKey: CANARY })(
        'qwen-test',
      ),
    );
    const err = await failure(model, userRequest({ modelName: 'qwen-test' }));
    expect(err).toMatchObject({ code: 'MODEL_REQUEST_FAILED', status: 401 });
    expectNoCanary(err);
  });

  it('an in-stream error event whose message echoes the key is redacted', async () => {
    server.script({
      kind: 'sse',
      events: new AnthropicStream()
        .partialText('Hal')
        .error('overloaded_error', `Overloaded for key ${CANARY}`),
    });
    const model = fromAiSdk(
      createAnthropic({ baseURL: `${server.url}/v1`, apiKey: CANARY })('claude-test'),
    );
    const err = await failure(model, userRequest({ modelName: 'claude-test' }));
    expect(err).toMatchObject({ code: 'MODEL_REQUEST_FAILED', isRetryable: true });
    expectNoCanary(err);
  });
});
