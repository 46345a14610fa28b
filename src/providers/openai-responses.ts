import type { OpenAI } from 'openai';
import type { Response } from 'openai/resources/responses/responses';
import type { ModelClientV1, ModelPart } from '../model/index.js';
import { streamEndedEarlyError } from './kit/index.js';
import {
  RESPONSES_PROVIDER,
  finishPart,
  outputItemPart,
  responseParts,
  toResponsesRequestBody,
} from './openai-responses-mapping.js';
import type { ResponsesRequestBody } from './openai-responses-mapping.js';
import { reportedError } from './openai-errors.js';
import { openaiModel } from './openai-shared.js';
import type { OpenAIApi, OpenAIProviderOptions } from './openai-shared.js';

/**
 * A model client on the OpenAI Responses API (`POST /responses`). Reasoning items come back
 * as `reasoning` parts whose `providerMetadata.openai` (`itemId`, `encryptedContent`) must
 * stay in the transcript; they are sent back on later turns. Creating it does no I/O; the
 * client is built, and the API key looked up, on the first request.
 * `maxOutputTokens` is sent as `max_output_tokens`, `toolChoice` as `tool_choice`, and
 * `providerOptions.openai` fields are added to the body; an entry that would set `model`,
 * `input`, `instructions`, `tools`, `stream`, `stream_options` or a field a request option
 * already set fails with `INVALID_CONFIGURATION` before anything is sent. A typed final answer
 * (`output`) is sent as `text.format` (`json_schema`) alongside the tools, merged into a
 * `providerOptions.openai.text` object such as `{ verbosity: 'low' }`; an entry whose `text`
 * sets `format` is then refused the same way (use `run({ output })`). A refusal streams back as
 * text, so the agent's answer validation reports it.
 *
 * @example
 * ```ts
 * import { openaiResponses } from 'muster-agent/openai';
 * const model = openaiResponses({ modelName: 'gpt-5-mini' });
 * ```
 */
export function openaiResponses(options: OpenAIProviderOptions = {}): ModelClientV1 {
  return openaiModel(RESPONSES_API, options);
}

const RESPONSES_API: OpenAIApi<ResponsesRequestBody> = {
  provider: RESPONSES_PROVIDER,
  body: toResponsesRequestBody,
  stream: streamResponses,
  async buffered(client, body, signal) {
    const response = await client.responses.create(
      { ...body, stream: false },
      { signal, maxRetries: 0 },
    );
    if (response.status === 'failed') throw failedError(response, client);
    return responseParts(response);
  },
};

async function* streamResponses(
  client: OpenAI,
  body: ResponsesRequestBody,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const stream = await client.responses.create(
    { ...body, stream: true },
    { signal, maxRetries: 0 },
  );
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
        throw reportedError(RESPONSES_PROVIDER, event.code, event.message, client.apiKey);
      default:
        break;
    }
  }
  throw streamEndedEarlyError(RESPONSES_PROVIDER, signal);
}

function failedError(response: Response, client: OpenAI): Error {
  return reportedError(
    RESPONSES_PROVIDER,
    response.error?.code,
    response.error?.message,
    client.apiKey,
  );
}
