import { OpenAI } from 'openai';
import { ModelError } from '../errors/index.js';
import { assertValid, checkedElsewhere, shape } from '../util/index.js';
import type { Check } from '../util/index.js';
import type { ModelClientV1, ModelPart, ModelRequest } from '../model/index.js';
import { providerModel } from './kit/index.js';
import { toModelFailure } from './openai-errors.js';

/** Options of {@link openaiChat} and {@link openaiResponses}. */
export interface OpenAIProviderOptions {
  /** A ready client; when given, `apiKey` and `baseURL` are ignored. */
  readonly client?: OpenAI;
  /** The API key; defaults to `OPENAI_API_KEY`. It is read on the first request. */
  readonly apiKey?: string;
  /** The API base URL, such as `http://localhost:8000/v1` for an OpenAI-compatible server. */
  readonly baseURL?: string;
  /** The model used when neither the agent nor the run names one. */
  readonly modelName?: string;
  /**
   * False for a model that reads no images (many local models): a request with images then
   * fails with `INVALID_CONFIGURATION` before anything is sent. Default true.
   */
  readonly images?: boolean;
}

/** One OpenAI API: how it writes a request body and reads a streamed or buffered answer. */
export interface OpenAIApi<Body> {
  /** The provider label, such as `openai.chat`. */
  readonly provider: string;
  /** The request body of a neutral request, without the streaming fields. */
  readonly body: (request: ModelRequest, modelName: string) => Body;
  /** Sends a streamed request and yields the parts as they arrive. */
  readonly stream: (client: OpenAI, body: Body, signal: AbortSignal) => AsyncIterable<ModelPart>;
  /** Sends a buffered request and returns the parts of the whole answer. */
  readonly buffered: (client: OpenAI, body: Body, signal: AbortSignal) => Promise<ModelPart[]>;
}

/** The keys of the options; their values are read where they are used. Others are refused. */
const OPTION_KEYS = shape({
  client: checkedElsewhere,
  apiKey: checkedElsewhere,
  baseURL: checkedElsewhere,
  modelName: checkedElsewhere,
  images: checkedElsewhere,
} satisfies Record<keyof OpenAIProviderOptions, Check>);

/**
 * A `ModelClientV1` around one OpenAI API: builds the client lazily, resolves the model name,
 * refuses an already-aborted signal, streams or buffers as the request asks, and maps every
 * failure to a Muster error. Every request is sent with `maxRetries: 0`, also on a client the
 * host passed in: the agent's `modelRetry` is the only retry policy.
 */
export function openaiModel<Body>(
  api: OpenAIApi<Body>,
  options: OpenAIProviderOptions,
): ModelClientV1 {
  const { provider } = api;
  assertValid(options, OPTION_KEYS, `${provider} options`);
  return providerModel({
    provider,
    defaultModelName: options.modelName,
    images: options.images,
    client: lazyClient(options),
    async *turn(client, request, modelName, signal) {
      const body = api.body(request, modelName);
      if (request.stream) yield* api.stream(client, body, signal);
      else yield* await api.buffered(client, body, signal);
    },
    failure: (err, signal, client) => toModelFailure(err, provider, signal, client.apiKey),
  });
}

/**
 * Returns a function that yields the client, building it on first use so that creating a
 * provider never does I/O and a missing API key only fails the first request.
 */
export function lazyClient(options: OpenAIProviderOptions): () => OpenAI {
  let client = options.client;
  return () => {
    if (client) return client;
    const apiKey = options.apiKey || process.env['OPENAI_API_KEY'];
    if (!apiKey) {
      throw new ModelError(
        'MODEL_REQUEST_FAILED',
        'No OpenAI API key: pass apiKey, a client, or set OPENAI_API_KEY',
        { isRetryable: false },
      );
    }
    client = new OpenAI({ apiKey, baseURL: options.baseURL });
    return client;
  };
}
