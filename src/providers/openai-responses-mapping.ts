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
  ModelPart,
  ModelRequest,
  StopReason,
  Usage,
  AssistantMessage,
  ImagePart,
  ProviderMetadata,
  ToolResultMessage,
  UserContentPart,
} from '../model/index.js';
import { imageUrl, toolMediaCaption } from './openai-shared.js';

/** The parts of a Responses request that do not depend on streaming. */
export type ResponsesRequestBody = Omit<ResponseCreateParamsBase, 'stream' | 'stream_options'>;

/** Builds the Responses body of a neutral request. */
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
  return body;
}

/**
 * Maps the transcript to Responses input items. Images a tool returned follow the run of
 * `function_call_output` items in one user message.
 */
export function toResponsesInput(request: ModelRequest): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  let pendingMedia: ResponseInputContent[] = [];
  const flushMedia = (): void => {
    if (pendingMedia.length > 0) out.push({ role: 'user', content: pendingMedia });
    pendingMedia = [];
  };
  for (const message of request.messages) {
    if (message.role !== 'tool') flushMedia();
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content });
        break;
      case 'user':
        out.push({ role: 'user', content: toInputContent(message.content) });
        break;
      case 'assistant':
        out.push(...assistantItems(message));
        break;
      case 'tool':
        out.push({
          type: 'function_call_output',
          call_id: message.callId,
          output: message.content,
        });
        pendingMedia.push(...toolMedia(message));
        break;
    }
  }
  flushMedia();
  return out;
}

function toInputContent(parts: readonly UserContentPart[]): ResponseInputContent[] {
  return parts.flatMap((part) =>
    part.type === 'text' ? [{ type: 'input_text' as const, text: part.text }] : inputImages([part]),
  );
}

/** Image parts with a usable URL; an image with neither data nor URL is left out. */
function inputImages(images: readonly ImagePart[]): ResponseInputContent[] {
  return images.flatMap((image) => {
    const url = imageUrl(image);
    return url === undefined
      ? []
      : [{ type: 'input_image' as const, image_url: url, detail: 'auto' as const }];
  });
}

function toolMedia(message: ToolResultMessage): ResponseInputContent[] {
  const images = inputImages(message.media ?? []);
  if (images.length === 0) return [];
  const caption = toolMediaCaption(message.toolName, message.callId);
  return [{ type: 'input_text', text: caption }, ...images];
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
      arguments:
        typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {}),
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
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
  };
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === 'number') out.cachedInputTokens = cached;
  return out;
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
