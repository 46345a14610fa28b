import { Anthropic } from '@anthropic-ai/sdk';
import { ModelError } from '../errors/index.js';
import { assertValid, checkedElsewhere, shape } from '../util/index.js';
import type { Check } from '../util/index.js';
import type { ModelClientV1 } from '../model/index.js';
import { providerModel } from './kit/index.js';
import { ANTHROPIC_PROVIDER, toAnthropicRequestBody } from './anthropic-mapping.js';
import { toAnthropicFailure } from './anthropic-errors.js';
import { anthropicMessageParts, anthropicStreamParts } from './anthropic-stream.js';

/** Options of {@link anthropic}. */
export interface AnthropicProviderOptions {
  /** A ready client; when given, `apiKey` and `baseURL` are ignored. */
  readonly client?: Anthropic;
  /** The API key; defaults to `ANTHROPIC_API_KEY`. It is read on the first request. */
  readonly apiKey?: string;
  /** The API base URL (without `/v1`), such as a proxy's. */
  readonly baseURL?: string;
  /** The model used when neither the agent nor the run names one. */
  readonly modelName?: string;
  /**
   * Places cache breakpoints on the tools, the system prompt and the conversation so far
   * (default true). False sends no `cache_control`.
   */
  readonly promptCaching?: boolean;
  /**
   * How a run's typed answer (`run({ output })`) is asked for. `native` (the default) sends
   * `output_config.format` with the answer's JSON Schema, and the model answers in text.
   * `tool`, for Anthropic-compatible endpoints (another vendor's `baseURL`) that refuse
   * `output_config`, offers the answer as a tool named after the output, whose input schema
   * is the answer's, and makes the model call a tool (that one, or one of the run's); the
   * call's input comes back as the answer's text, not as a tool call.
   */
  readonly structuredOutput?: 'native' | 'tool';
}

/** The keys of the options; their values are read where they are used. Others are refused. */
const OPTION_KEYS = shape({
  client: checkedElsewhere,
  apiKey: checkedElsewhere,
  baseURL: checkedElsewhere,
  modelName: checkedElsewhere,
  promptCaching: checkedElsewhere,
  structuredOutput: checkedElsewhere,
} satisfies Record<keyof AnthropicProviderOptions, Check>);

/**
 * A model client on the Anthropic Messages API, built on the official `@anthropic-ai/sdk`.
 * Streams text, parallel `tool_use` calls and extended thinking; each thinking block comes
 * back as a `reasoning` part whose `providerMetadata.anthropic` (`signature`, or
 * `redactedData` for redacted thinking) must stay in the transcript, and is sent back
 * unchanged on later turns. `reasoningEffort` turns on thinking with a token budget
 * (`minimal` 1024 up to `xhigh` 32000). Images go in user turns and inside tool results.
 * Prompt caching is on by default (see `promptCaching`); usage reports cache reads as
 * `cachedInputTokens` and cache writes as `cacheWriteInputTokens`. A typed answer goes out as
 * `output_config.format` (see `structuredOutput`) with the schema as the SDK's
 * `transformJSONSchema` makes it. The client's own retries
 * are off for every request (`maxRetries: 0`, also on a client passed in): the agent's
 * `modelRetry` is the only retry policy. Creating it does no I/O.
 *
 * @example
 * ```ts
 * import { anthropic } from 'muster-agent/anthropic';
 * const model = anthropic({ modelName: 'claude-sonnet-4-5' });
 * ```
 */
export function anthropic(options: AnthropicProviderOptions = {}): ModelClientV1 {
  assertValid(options, OPTION_KEYS, 'anthropic() options');
  const promptCaching = options.promptCaching ?? true;
  const structuredOutput = options.structuredOutput ?? 'native';
  return providerModel({
    provider: ANTHROPIC_PROVIDER,
    defaultModelName: options.modelName,
    client: lazyAnthropicClient(options),
    async *turn(client, request, modelName, signal) {
      const body = toAnthropicRequestBody(request, modelName, { promptCaching, structuredOutput });
      const answerTool = structuredOutput === 'tool' ? request.output?.name : undefined;
      const requestOptions = { signal, maxRetries: 0 };
      if (!request.stream) {
        const message = await client.messages.create({ ...body, stream: false }, requestOptions);
        yield* anthropicMessageParts(message, answerTool);
        return;
      }
      const stream = await client.messages.create({ ...body, stream: true }, requestOptions);
      yield* anthropicStreamParts(stream, signal, answerTool);
    },
    failure: (err, signal, client) =>
      toAnthropicFailure(err, ANTHROPIC_PROVIDER, signal, client.apiKey),
  });
}

function lazyAnthropicClient(options: AnthropicProviderOptions): () => Anthropic {
  let client = options.client;
  return () => {
    if (client) return client;
    const apiKey = options.apiKey || process.env['ANTHROPIC_API_KEY'];
    if (!apiKey) {
      throw new ModelError(
        'MODEL_REQUEST_FAILED',
        'No Anthropic API key: pass apiKey, a client, or set ANTHROPIC_API_KEY',
        { isRetryable: false },
      );
    }
    client = new Anthropic({ apiKey, ...(options.baseURL ? { baseURL: options.baseURL } : {}) });
    return client;
  };
}
