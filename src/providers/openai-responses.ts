import type { OpenAI } from 'openai';
import type { Response } from 'openai/resources/responses/responses';
import { abortedError } from '../errors/index.js';
import type { ModelClientV1, ModelPart, ModelRequest } from '../model/index.js';
import {
  finishPart,
  outputItemPart,
  responseParts,
  toResponsesRequestBody,
} from './openai-responses-mapping.js';
import type { ResponsesRequestBody } from './openai-responses-mapping.js';
import { openaiModel, reportedError, truncatedStreamError } from './openai-shared.js';
import type { OpenAIProviderOptions } from './openai-shared.js';

const PROVIDER = 'openai.responses';

/**
 * A model client on the OpenAI Responses API (`POST /responses`). Reasoning items come back
 * as `reasoning` parts whose `providerMetadata.openai` (`itemId`, `encryptedContent`) must
 * stay in the transcript; they are sent back on later turns. Creating it does no I/O; the
 * client is built, and the API key looked up, on the first request.
 *
 * @example
 * ```ts
 * import { openaiResponses } from 'muster/openai';
 * const model = openaiResponses({ modelName: 'gpt-5-mini' });
 * ```
 */
export function openaiResponses(options: OpenAIProviderOptions = {}): ModelClientV1 {
  return openaiModel(PROVIDER, options, responsesTurn);
}

async function* responsesTurn(
  client: OpenAI,
  request: ModelRequest,
  modelName: string,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const body = toResponsesRequestBody(request, modelName);
  if (request.stream) yield* streamResponses(client, body, signal);
  else {
    const response = await client.responses.create({ ...body, stream: false }, { signal });
    if (response.status === 'failed') throw failedError(response, client);
    yield* responseParts(response);
  }
}

async function* streamResponses(
  client: OpenAI,
  body: ResponsesRequestBody,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const stream = await client.responses.create({ ...body, stream: true }, { signal });
  let hasToolCalls = false;
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_text.delta':
        if (event.delta) yield { type: 'text-delta', text: event.delta };
        break;
      case 'response.refusal.delta':
        if (event.delta) yield { type: 'text-delta', text: event.delta };
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (event.delta) yield { type: 'reasoning-delta', text: event.delta };
        break;
      case 'response.output_item.done': {
        if (event.item.type === 'function_call') hasToolCalls = true;
        const part = outputItemPart(event.item);
        if (part) yield part;
        break;
      }
      case 'response.completed':
      case 'response.incomplete':
        yield finishPart(event.response, hasToolCalls);
        return;
      case 'response.failed':
        throw failedError(event.response, client);
      case 'error':
        throw reportedError(PROVIDER, event.code, event.message, client.apiKey);
      default:
        break;
    }
  }
  // The client ends the stream quietly when the signal fires; that is an abort, not an end.
  if (signal.aborted) throw abortedError(`The ${PROVIDER} stream`, signal.reason);
  throw truncatedStreamError(PROVIDER);
}

function failedError(response: Response, client: OpenAI): Error {
  return reportedError(PROVIDER, response.error?.code, response.error?.message, client.apiKey);
}
