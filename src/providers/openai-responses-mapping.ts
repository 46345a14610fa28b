import type {
  FunctionTool,
  Response,
  ResponseCreateParamsBase,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseReasoningItem,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import type {
  AssistantMessage,
  ModelPart,
  ModelRequest,
  ProviderMetadata,
  StopReason,
  Usage,
} from '../model/index.js';
import { imageUrl, toUsage, toolCallArgumentsText, writeTranscript } from './kit/index.js';
import type { TranscriptWriter } from './kit/index.js';
import { responsesOutputFields } from './openai-output-format.js';
import { withOpenAIOptions } from './openai-request-options.js';
import type { OpenAIRequestShape } from './openai-request-options.js';

/** The provider label of the Responses client. */
export const RESPONSES_PROVIDER = 'openai.responses';

/** The parts of a Responses request that do not depend on streaming. */
export type ResponsesRequestBody = Omit<ResponseCreateParamsBase, 'stream' | 'stream_options'>;

const RESPONSES_SHAPE: OpenAIRequestShape<ResponsesRequestBody> = {
  provider: RESPONSES_PROVIDER,
  reserved: ['model', 'input', 'instructions', 'tools', 'stream', 'stream_options'],
  maxOutputTokens: 'max_output_tokens',
  namedToolChoice: (name) => ({ type: 'function', name }),
  output: responsesOutputFields,
};

/**
 * Builds the Responses body of a neutral request. Optional fields are sent only when the
 * request sets them; `output` becomes a `json_schema` `text.format` next to the tools, and
 * `providerOptions.openai` is merged last (see `withOpenAIOptions`).
 */
export function toResponsesRequestBody(request: ModelRequest, model: string): ResponsesRequestBody {
  const body: ResponsesRequestBody = { model, input: toResponsesInput(request) };
  if (request.system) body.instructions = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map(
      (tool): FunctionTool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: { ...tool.inputSchema },
        strict: false,
      }),
    );
  }
  if (request.reasoningEffort !== undefined) {
    body.reasoning = { effort: request.reasoningEffort };
    if (request.reasoningEffort !== 'none') body.include = ['reasoning.encrypted_content'];
  }
  return withOpenAIOptions(body, request, RESPONSES_SHAPE);
}

const RESPONSES_WRITER: TranscriptWriter<ResponseInputItem, ResponseInputContent> = {
  text: (text) => ({ type: 'input_text', text }),
  image: (image) => {
    const url = imageUrl(image);
    return url === undefined ? undefined : { type: 'input_image', image_url: url, detail: 'auto' };
  },
  system: (content) => ({ role: 'system', content }),
  user: (content) => ({ role: 'user', content }),
  assistant: (message) => assistantItems(message),
  toolResult: (message) => ({
    type: 'function_call_output',
    call_id: message.callId,
    output: message.content,
  }),
};

/**
 * Maps the transcript to Responses input items. Images a tool returned follow the run of
 * `function_call_output` items in one user message.
 */
export function toResponsesInput(request: ModelRequest): ResponseInputItem[] {
  return writeTranscript(request.messages, RESPONSES_WRITER);
}

function assistantItems(message: AssistantMessage): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  let text = '';
  const flushText = (): void => {
    if (text !== '') out.push({ role: 'assistant', content: text });
    text = '';
  };
  for (const part of message.content) {
    if (part.type === 'text') {
      text += part.text;
      continue;
    }
    flushText();
    const meta = openaiMetadata(part.providerMetadata);
    if (part.type === 'reasoning') {
      // Reasoning without an item id came from another provider and cannot be replayed.
      if (typeof meta['itemId'] !== 'string') continue;
      const item: ResponseReasoningItem = {
        type: 'reasoning',
        id: meta['itemId'],
        summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
      };
      if (typeof meta['encryptedContent'] === 'string') {
        item.encrypted_content = meta['encryptedContent'];
      }
      out.push(item);
      continue;
    }
    const call: ResponseFunctionToolCall = {
      type: 'function_call',
      call_id: part.callId,
      name: part.name,
      arguments: toolCallArgumentsText(part),
    };
    if (typeof meta['itemId'] === 'string') call.id = meta['itemId'];
    out.push(call);
  }
  flushText();
  return out;
}

function openaiMetadata(metadata: ProviderMetadata | undefined): Readonly<Record<string, unknown>> {
  return metadata?.['openai'] ?? {};
}

/** Maps Responses usage; optional counters stay absent when the server did not report them. */
export function toResponsesUsage(usage: ResponseUsage): Usage {
  return toUsage({
    input: usage.input_tokens,
    output: usage.output_tokens,
    total: usage.total_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens,
    cachedInput: usage.input_tokens_details?.cached_tokens,
  });
}

/** The `finish` part of a completed or incomplete response. */
export function finishPart(response: Response, hasToolCalls: boolean): ModelPart {
  return {
    type: 'finish',
    stopReason: stopReasonOf(response, hasToolCalls),
    ...(response.usage ? { usage: toResponsesUsage(response.usage) } : {}),
    providerMetadata: { openai: { responseId: response.id } },
  };
}

function stopReasonOf(response: Response, hasToolCalls: boolean): StopReason {
  if (response.status === 'incomplete') {
    const reason = response.incomplete_details?.reason;
    if (reason === 'max_output_tokens') return 'length';
    if (reason === 'content_filter') return 'content-filter';
    return 'other';
  }
  return hasToolCalls ? 'tool-calls' : 'stop';
}

/** The part a finished output item yields: a tool call or a replayable reasoning item. */
export function outputItemPart(item: ResponseOutputItem): ModelPart | undefined {
  if (item.type === 'function_call') {
    return {
      type: 'tool-call',
      callId: item.call_id,
      name: item.name,
      argumentsText: item.arguments,
      ...(item.id ? { providerMetadata: { openai: { itemId: item.id } } } : {}),
    };
  }
  if (item.type === 'reasoning') {
    const meta: Record<string, unknown> = { itemId: item.id };
    if (typeof item.encrypted_content === 'string')
      meta['encryptedContent'] = item.encrypted_content;
    return { type: 'reasoning', text: reasoningSummary(item), providerMetadata: { openai: meta } };
  }
  return undefined;
}

function reasoningSummary(item: ResponseReasoningItem): string {
  return item.summary.map((s) => s.text).join('\n\n');
}

/** The parts of a buffered (non-streamed) response, in output order. */
export function responseParts(response: Response): ModelPart[] {
  const parts: ModelPart[] = [];
  let hasToolCalls = false;
  for (const item of response.output) {
    if (item.type === 'message') {
      for (const content of item.content) {
        const text = content.type === 'output_text' ? content.text : content.refusal;
        if (text) parts.push({ type: 'text-delta', text });
      }
      continue;
    }
    if (item.type === 'reasoning') {
      const text = reasoningSummary(item);
      if (text) parts.push({ type: 'reasoning-delta', text });
    }
    if (item.type === 'function_call') hasToolCalls = true;
    const part = outputItemPart(item);
    if (part) parts.push(part);
  }
  parts.push(finishPart(response, hasToolCalls));
  return parts;
}
