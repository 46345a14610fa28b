import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { OpenAI } from 'openai';
import { MusterError } from '../../src/errors/index.js';
import type { ModelClientV1 } from '../../src/model/index.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import type { OpenAIProviderOptions } from '../../src/providers/openai.js';
import { apiErrorBody } from '../fixtures/openai-wire-events.js';
import { startOpenAIWireServer } from '../fixtures/openai-wire-server.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import {
  TEST_API_KEY,
  collect,
  expectNoSecret,
  failure,
  testClient,
  userRequest,
} from './provider-test-kit.js';

let server: OpenAIWireServer;
beforeAll(async () => {
  server = await startOpenAIWireServer();
});
afterEach(() => {
  server.reset();
  vi.unstubAllEnvs();
});
afterAll(() => server.close());

/** A base URL on which nothing listens: a port that was free a moment ago. */
async function deadBaseURL(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

const providers: ReadonlyArray<[string, (options: OpenAIProviderOptions) => ModelClientV1]> = [
  ['openai.chat', openaiChat],
  ['openai.responses', openaiResponses],
];

describe.each(providers)('%s failures', (provider, create) => {
  it.each([
    [500, 'server_error', true],
    [502, null, true],
    [429, 'rate_limit_exceeded', true],
    [408, null, true],
    [401, 'invalid_api_key', false],
    [400, 'invalid_value', false],
  ])(
    'maps HTTP %i to a ModelError (retryable: %s) without the key',
    async (status, code, retry) => {
      const message = `Incorrect API key provided: ${TEST_API_KEY}. Authorization: Bearer ${TEST_API_KEY}`;
      server.script({ kind: 'json', status, body: apiErrorBody(message, 'api_error', code) });
      const err = await failure(create({ client: testClient(server) }), userRequest());
      expect(err.code).toBe('MODEL_REQUEST_FAILED');
      expect(err.status).toBe(status);
      expect(err.isRetryable).toBe(retry);
      expect(err.details).toMatchObject({ provider, status, requestId: 'req_test' });
      if (code) expect(err.details['errorCode']).toBe(code);
      expect(err.message).toContain(`HTTP ${status}`);
      expectNoSecret(err);
    },
  );

  it('maps a refused connection to a retryable ModelError', async () => {
    const client = new OpenAI({
      apiKey: TEST_API_KEY,
      baseURL: await deadBaseURL(),
      maxRetries: 0,
    });
    const err = await failure(create({ client }), userRequest());
    expect(err.code).toBe('MODEL_REQUEST_FAILED');
    expect(err.status).toBeUndefined();
    expect(err.isRetryable).toBe(true);
    expectNoSecret(err);
  });

  it('rejects with ABORTED before any request when the signal already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = create({ client: testClient(server) });
    const err = await collect(model, userRequest(), controller.signal).catch((e: unknown) => e);
    expect(MusterError.isInstance(err) && err.code).toBe('ABORTED');
    expect(server.requests).toHaveLength(0);
  });

  it('fails at generate time, not construction, when there is no API key', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const keyless = create({ baseURL: `${server.url}/v1` });
    const err = await failure(keyless, userRequest());
    expect(err.code).toBe('MODEL_REQUEST_FAILED');
    expect(err.isRetryable).toBe(false);
    expect(err.message).toBe('No OpenAI API key: pass apiKey, a client, or set OPENAI_API_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('fails when neither the request nor the provider names a model', async () => {
    const err = await failure(
      create({ client: testClient(server) }),
      userRequest({ modelName: '' }),
    );
    expect(err.code).toBe('MODEL_REQUEST_FAILED');
    expect(err.isRetryable).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});
