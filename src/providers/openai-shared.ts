import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAI,
} from 'openai';
import { ModelError, MusterError, abortedError } from '../errors/index.js';
import type { ModelClientV1, ModelPart, ModelRequest, ImagePart } from '../model/index.js';
import { redact } from '../util/index.js';

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
}

/** One model turn on a ready client: the part that differs between the two APIs. */
export type OpenAITurn = (
  client: OpenAI,
  request: ModelRequest,
  modelName: string,
  signal: AbortSignal,
) => AsyncIterable<ModelPart>;

/**
 * A `ModelClientV1` around one OpenAI API: builds the client lazily, resolves the model name,
 * refuses an already-aborted signal, and maps every failure to a Muster error.
 */
export function openaiModel(
  provider: string,
  options: OpenAIProviderOptions,
  turn: OpenAITurn,
): ModelClientV1 {
  const getClient = lazyClient(options);
  return {
    specificationVersion: 'muster-model-v1',
    provider,
    ...(options.modelName ? { defaultModelName: options.modelName } : {}),
    async *generate(request, { signal }) {
      if (signal.aborted) throw abortedError(`The ${provider} request`, signal.reason);
      const client = getClient();
      const modelName = resolveModelName(request.modelName, options.modelName);
      try {
        yield* turn(client, request, modelName, signal);
      } catch (err) {
        throw toModelFailure(err, provider, signal, client.apiKey);
      }
    },
  };
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

/** Picks the model name of a request, falling back to the provider's default. */
export function resolveModelName(requested: string, fallback: string | undefined): string {
  const name = requested || fallback;
  if (!name) {
    throw new ModelError(
      'MODEL_REQUEST_FAILED',
      'No model name: pass modelName to the provider, the agent or the run',
      { isRetryable: false },
    );
  }
  return name;
}

/** The URL of an image: its own URL, or a `data:` URL built from its base64 data. */
export function imageUrl(image: ImagePart): string | undefined {
  if (image.data !== undefined) return `data:${image.mimeType};base64,${image.data}`;
  return image.url;
}

/** The text that introduces images a tool returned, sent in a user message after the results. */
export function toolMediaCaption(toolName: string, callId: string): string {
  return `Images returned by tool ${toolName} (call ${callId}):`;
}

/** The error for a stream that stopped before the provider said the turn was over. */
export function truncatedStreamError(provider: string): ModelError {
  return new ModelError(
    'MODEL_RESPONSE_INVALID',
    `The ${provider} stream ended before the turn finished; retry the request.`,
    { isRetryable: true, details: { provider } },
  );
}

const RETRYABLE_ERROR_CODES = new Set(['server_error', 'rate_limit_exceeded', 'timeout']);

/**
 * The error for a failure the provider reported inside a stream or a response body
 * (`error` and `response.failed` events). `code` is the provider's error code.
 */
export function reportedError(
  provider: string,
  code: string | null | undefined,
  message: string | undefined,
  apiKey: string | null | undefined,
): ModelError {
  const reason = sentence(redact(message || 'no message', apiKey));
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `${provider} reported a failure${code ? ` (${code})` : ''}: ${reason}. Retry later if it persists.`,
    {
      isRetryable: code ? RETRYABLE_ERROR_CODES.has(code) : false,
      details: { provider, ...(code ? { errorCode: code } : {}) },
    },
  );
}

/**
 * Turns anything a request or stream threw into a Muster error: `ABORTED` when `signal`
 * fired, otherwise a `ModelError` whose `isRetryable` follows the HTTP status. Messages and
 * details never carry the API key or request headers.
 */
export function toModelFailure(
  err: unknown,
  provider: string,
  signal: AbortSignal,
  apiKey: string | null | undefined,
): MusterError {
  if (MusterError.isInstance(err)) return err;
  if (signal.aborted || err instanceof APIUserAbortError) {
    return abortedError(`The ${provider} request`, signal.reason);
  }
  if (err instanceof APIConnectionTimeoutError) {
    return new ModelError(
      'MODEL_REQUEST_FAILED',
      `The ${provider} request timed out; retry it, or raise the client's timeout.`,
      { isRetryable: true, cause: err, details: { provider } },
    );
  }
  if (err instanceof APIConnectionError) {
    return new ModelError(
      'MODEL_REQUEST_FAILED',
      `Could not reach the ${provider} API: ${redact(err.message, apiKey)}. Check the network and baseURL, then retry.`,
      { isRetryable: true, cause: err, details: { provider } },
    );
  }
  if (err instanceof APIError) {
    if (typeof err.status !== 'number') {
      return withCause(reportedError(provider, err.code, err.message, apiKey), err);
    }
    return statusError(err, err.status, provider, apiKey);
  }
  if (err instanceof SyntaxError) {
    return new ModelError(
      'MODEL_RESPONSE_INVALID',
      `The ${provider} API sent data that is not valid JSON: ${redact(err.message, apiKey)}. Check that baseURL points at an OpenAI-compatible server.`,
      { isRetryable: false, cause: err, details: { provider } },
    );
  }
  const reason = err instanceof Error ? err.message : String(err);
  return new ModelError(
    'MODEL_REQUEST_FAILED',
    `The ${provider} request failed: ${redact(reason, apiKey)}`,
    { isRetryable: false, cause: err, details: { provider } },
  );
}

function statusError(
  err: APIError,
  status: number,
  provider: string,
  apiKey: string | null | undefined,
): ModelError {
  const isRetryable = status === 408 || status === 429 || status >= 500;
  const raw = err.message
    .replace(/^\d{3}\s+/, '')
    .replace('status code (no body)', 'no error body');
  const reason = sentence(redact(raw, apiKey));
  const details: Record<string, unknown> = { provider, status };
  if (err.code) details['errorCode'] = err.code;
  if (err.type) details['errorType'] = err.type;
  if (err.requestID) details['requestId'] = err.requestID;
  const message = `The ${provider} API answered HTTP ${status}: ${reason}. ${statusAdvice(status)}`;
  return new ModelError('MODEL_REQUEST_FAILED', message, {
    status,
    isRetryable,
    cause: err,
    details,
  });
}

function statusAdvice(status: number): string {
  if (status === 401) return 'Check the API key.';
  if (status === 403) return 'Check that the key may use this model and project.';
  if (status === 404) return 'Check modelName and baseURL.';
  if (status === 408 || status >= 500) return 'Retry later.';
  if (status === 429) return 'Retry later or lower the request rate.';
  return 'Check the model name, messages and tools of the request.';
}

function withCause(error: ModelError, cause: unknown): ModelError {
  return new ModelError(error.code, error.message, {
    isRetryable: error.isRetryable,
    details: error.details,
    cause,
  });
}

function sentence(text: string): string {
  return text.trim().replace(/\.+$/, '');
}
