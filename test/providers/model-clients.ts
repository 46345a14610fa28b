import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Anthropic } from '@anthropic-ai/sdk';
import { OpenAI } from 'openai';
import type { ModelClientV1 } from '../../src/model/index.js';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { anthropic } from '../../src/providers/anthropic.js';
import { openaiChat, openaiResponses } from '../../src/providers/openai.js';
import type { OpenAIWireServer } from '../fixtures/openai-wire-server.js';
import { TEST_API_KEY } from './provider-test-kit.js';
import { ANTHROPIC, CHAT, RESPONSES } from './wire-dialects.js';
import type { WireDialect } from './wire-dialects.js';

/** One of the five model clients, with the wire format its vendor library speaks. */
export interface ModelUnderTest {
  readonly name: string;
  readonly dialect: WireDialect;
  readonly modelName: string;
  /** The client, on the vendor's own library pointed at the loopback server. */
  readonly make: (server: OpenAIWireServer) => ModelClientV1;
  /** How the reasoning of `dialect.reasoningAndCalls('Need both cities.', …)` comes back. */
  readonly echoedReasoning: readonly unknown[];
}

const THINKING_ECHO = [{ type: 'thinking', thinking: 'Need both cities.', signature: 'SIG-1' }];

/**
 * The five model clients every kit scenario runs over. The vendors' clients get their default
 * retry settings on purpose: Muster turns their retries off per request.
 */
export const MODELS_UNDER_TEST: readonly ModelUnderTest[] = [
  {
    name: 'openaiChat',
    dialect: CHAT,
    modelName: 'gpt-test',
    make: (server) =>
      openaiChat({ client: new OpenAI({ apiKey: TEST_API_KEY, baseURL: `${server.url}/v1` }) }),
    // Chat Completions has no replayable reasoning: openaiChat sends none back.
    echoedReasoning: [],
  },
  {
    name: 'openaiResponses',
    dialect: RESPONSES,
    modelName: 'gpt-test',
    make: (server) =>
      openaiResponses({
        client: new OpenAI({ apiKey: TEST_API_KEY, baseURL: `${server.url}/v1` }),
      }),
    echoedReasoning: [{ id: 'rs_1', encrypted_content: 'ENCRYPTED-1' }],
  },
  {
    name: 'anthropic',
    dialect: ANTHROPIC,
    modelName: 'claude-test',
    make: (server) =>
      anthropic({ client: new Anthropic({ apiKey: TEST_API_KEY, baseURL: server.url }) }),
    echoedReasoning: THINKING_ECHO,
  },
  {
    name: 'fromAiSdk(@ai-sdk/openai-compatible)',
    dialect: CHAT,
    modelName: 'qwen-test',
    make: (server) =>
      fromAiSdk(
        createOpenAICompatible({
          name: 'local',
          baseURL: `${server.url}/v1`,
          apiKey: TEST_API_KEY,
          includeUsage: true,
          // typed answers go out as `json_schema` (without it the provider sends `json_object`)
          supportsStructuredOutputs: true,
        })('qwen-test'),
      ),
    // The openai-compatible provider sends reasoning back as `reasoning_content`.
    echoedReasoning: ['Need both cities.'],
  },
  {
    name: 'fromAiSdk(@ai-sdk/anthropic)',
    dialect: ANTHROPIC,
    modelName: 'claude-test',
    make: (server) =>
      fromAiSdk(
        createAnthropic({ baseURL: `${server.url}/v1`, apiKey: TEST_API_KEY })('claude-test'),
      ),
    echoedReasoning: THINKING_ECHO,
  },
];
