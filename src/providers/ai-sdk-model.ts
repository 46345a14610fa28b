import type { LanguageModelV3 } from '@ai-sdk/provider';
import { MusterError } from '../errors/index.js';
import { assertValid, checkedElsewhere, shape } from '../util/index.js';
import type { Check } from '../util/index.js';
import type { ModelClientV1 } from '../model/index.js';
import { providerModel } from './kit/index.js';
import { toAiSdkFailure } from './ai-sdk-errors.js';
import { toAiSdkCallOptions } from './ai-sdk-prompt.js';
import { aiSdkContentParts, aiSdkStreamParts } from './ai-sdk-stream.js';

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions {
  /**
   * False for a model that reads no images: a request with images then fails with
   * `INVALID_CONFIGURATION` before anything is sent. Default true.
   */
  readonly images?: boolean;
}

/** The keys of the options; their values are read where they are used. Others are refused. */
const OPTION_KEYS = shape({ images: checkedElsewhere } satisfies Record<
  keyof FromAiSdkOptions,
  Check
>);

/**
 * A model client around any AI SDK `LanguageModelV3` (`@ai-sdk/anthropic`, `@ai-sdk/openai`,
 * `@ai-sdk/openai-compatible` for Ollama, vLLM or llama.cpp, and the others). The model id is
 * the AI SDK model's own: a run whose `modelName` names another fails with
 * `INVALID_CONFIGURATION`. Reasoning blocks and tool calls keep the model's provider metadata
 * under `providerMetadata.aiSdk`, sent back as `providerOptions` on later turns.
 * `providerOptions` of a request go to the model as they are (keyed by AI SDK provider id).
 * `reasoningEffort` is sent as a thinking budget to Anthropic models and as the
 * `reasoningEffort` provider option to others (OpenAI, OpenAI-compatible, xAI, Groq); a
 * provider without that option ignores it. A run's typed answer (`run({ output })`) goes to the model as
 * `responseFormat` (JSON with the answer's schema, name and description) beside its tools;
 * each AI SDK provider sends it its own way (OpenAI-compatible `response_format` with
 * `supportsStructuredOutputs: true`, Anthropic `output_config.format` or its JSON tool). AI SDK providers do not retry a call
 * themselves, so the agent's `modelRetry` is the only retry policy. Creating it does no I/O.
 *
 * @example
 * ```ts
 * import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
 * import { fromAiSdk } from 'muster-agent/ai-sdk';
 * const ollama = createOpenAICompatible({ name: 'ollama', baseURL: 'http://localhost:11434/v1' });
 * const model = fromAiSdk(ollama('qwen3'));
 * ```
 */
export function fromAiSdk(model: LanguageModelV3, options: FromAiSdkOptions = {}): ModelClientV1 {
  if (model?.specificationVersion !== 'v3' || typeof model.doStream !== 'function') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      'fromAiSdk needs an AI SDK LanguageModelV3 (specificationVersion "v3"), such as anthropic("claude-sonnet-4-5") from @ai-sdk/anthropic: update the AI SDK provider package to a version for ai@6.',
    );
  }
  assertValid(options, OPTION_KEYS, 'fromAiSdk() options');
  const provider = `ai-sdk.${model.provider}`;
  const providerId = model.provider.split('.')[0] ?? model.provider;
  return providerModel({
    provider,
    defaultModelName: model.modelId,
    images: options.images,
    client: () => model,
    async *turn(client, request, modelName, signal) {
      if (modelName !== client.modelId) {
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `The ${provider} model is bound to '${client.modelId}' but the run asked for '${modelName}': drop modelName, or create the AI SDK model for '${modelName}'.`,
          { details: { provider, modelName, modelId: client.modelId } },
        );
      }
      const call = toAiSdkCallOptions(request, providerId, signal, provider);
      if (!request.stream) {
        const result = await client.doGenerate(call);
        yield* aiSdkContentParts(
          result.content,
          result.finishReason,
          result.usage,
          result.providerMetadata,
        );
        return;
      }
      const { stream } = await client.doStream(call);
      yield* aiSdkStreamParts(stream, provider, signal);
    },
    failure: (err, signal) => toAiSdkFailure(err, provider, signal),
  });
}
