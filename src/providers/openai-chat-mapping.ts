import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { ModelError } from '../errors/index.js';
import type {
  ModelPart,
  ModelRequest,
  StopReason,
  Usage,
  AssistantMessage,
  ImagePart,
  ToolResultMessage,
  UserContentPart,
} from '../model/index.js';
import { imageUrl, toolMediaCaption } from './openai-shared.js';

/** The parts of a chat completion request that do not depend on streaming. */
export type ChatRequestBody = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

/** Builds the chat completion body of a neutral request. */
export function toChatRequestBody(request: ModelRequest, model: string): ChatRequestBody {
  const body: ChatRequestBody = { model, messages: toChatMessages(request) };
  if (request.tools.length > 0) {
    body.tools = request.tools.map(
      (tool): ChatCompletionTool => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: { ...tool.inputSchema },
        },
      }),
    );
  }
  if (request.reasoningEffort !== undefined) body.reasoning_effort = request.reasoningEffort;
  return body;
}

/**
 * Maps the transcript to chat messages. Chat tool messages cannot carry images, so images a
 * tool returned follow the run of tool messages in one user message.
 */
export function toChatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (request.system) out.push({ role: 'system', content: request.system });
  let pendingMedia: ChatCompletionContentPart[] = [];
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
        out.push({ role: 'user', content: toChatContent(message.content) });
        break;
      case 'assistant': {
        const assistant = toAssistantMessage(message);
        if (assistant) out.push(assistant);
        break;
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: message.callId, content: message.content });
        pendingMedia.push(...toolMedia(message));
        break;
    }
  }
  flushMedia();
  return out;
}

function toChatContent(parts: readonly UserContentPart[]): ChatCompletionContentPart[] {
  return parts.flatMap((part) =>
    part.type === 'text' ? [{ type: 'text' as const, text: part.text }] : imageParts([part]),
  );
}

/** Image parts with a usable URL; an image with neither data nor URL is left out. */
function imageParts(images: readonly ImagePart[]): ChatCompletionContentPart[] {
  return images.flatMap((image) => {
    const url = imageUrl(image);
    return url === undefined ? [] : [{ type: 'image_url' as const, image_url: { url } }];
  });
}

function toolMedia(message: ToolResultMessage): ChatCompletionContentPart[] {
  const images = imageParts(message.media ?? []);
  if (images.length === 0) return [];
  return [{ type: 'text', text: toolMediaCaption(message.toolName, message.callId) }, ...images];
}

function toAssistantMessage(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  let text = '';
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const part of message.content) {
    if (part.type === 'text') text += part.text;
    if (part.type === 'tool-call') {
      const args =
        typeof part.arguments === 'string' ? part.arguments : JSON.stringify(part.arguments ?? {});
      calls.push({
        id: part.callId,
        type: 'function',
        function: { name: part.name, arguments: args },
      });
    }
  }
  if (calls.length === 0 && text === '') return undefined;
  if (calls.length === 0) return { role: 'assistant', content: text };
  return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls };
}

/** Maps a chat `finish_reason`; tool calls win over a `stop` some compatible servers send. */
export function toStopReason(reason: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (reason) {
    case 'stop':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Maps chat usage; optional counters stay absent when the server did not report them. */
export function toUsage(usage: CompletionUsage): Usage {
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
  };
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') out.cachedInputTokens = cached;
  return out;
}

/** Reasoning text of a delta or message: `reasoning_content` (DeepSeek, vLLM) or `reasoning`. */
export function reasoningText(source: object): string | undefined {
  const record = source as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof record.reasoning_content === 'string') return record.reasoning_content;
  if (typeof record.reasoning === 'string') return record.reasoning;
  return undefined;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/** Collects tool calls streamed by `index`: id and name come first, argument fragments after. */
export class ChatToolCallCollector {
  readonly #calls = new Map<number, PendingCall>();

  /** True once any tool call fragment arrived. */
  get hasCalls(): boolean {
    return this.#calls.size > 0;
  }

  /** Adds the tool call fragments of one delta. */
  add(fragments: readonly ChatCompletionChunk.Choice.Delta.ToolCall[]): void {
    for (const fragment of fragments) {
      let call = this.#calls.get(fragment.index);
      if (!call) {
        call = { id: '', name: '', args: '' };
        this.#calls.set(fragment.index, call);
      }
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name = fragment.function.name;
      if (fragment.function?.arguments) call.args += fragment.function.arguments;
    }
  }

  /** The finished calls as `tool-call` parts, in index order. */
  parts(provider: string): ModelPart[] {
    const sorted = [...this.#calls.entries()].sort(([a], [b]) => a - b);
    return sorted.map(([index, call]) => {
      if (!call.name) {
        throw new ModelError(
          'MODEL_RESPONSE_INVALID',
          `The ${provider} stream sent tool call ${index} without a function name; retry the request.`,
          { isRetryable: true, details: { provider, toolCallIndex: index } },
        );
      }
      return {
        type: 'tool-call',
        callId: call.id || `call_${index}`,
        name: call.name,
        argumentsText: call.args,
      };
    });
  }
}

/** The parts of a buffered (non-streamed) chat completion. */
export function completionParts(completion: ChatCompletion, provider: string): ModelPart[] {
  const choice = completion.choices[0];
  if (!choice) {
    throw new ModelError(
      'MODEL_RESPONSE_INVALID',
      `The ${provider} API answered without a choice; retry the request.`,
      { isRetryable: true, details: { provider } },
    );
  }
  const parts: ModelPart[] = [];
  const message = choice.message;
  const reasoning = reasoningText(message);
  if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
  if (message.content) parts.push({ type: 'text-delta', text: message.content });
  else if (message.refusal) parts.push({ type: 'text-delta', text: message.refusal });
  const collector = new ChatToolCallCollector();
  collector.add(
    (message.tool_calls ?? []).flatMap((call, index) =>
      call.type === 'function' ? [{ index, id: call.id, function: call.function }] : [],
    ),
  );
  parts.push(...collector.parts(provider));
  parts.push({
    type: 'finish',
    stopReason: toStopReason(choice.finish_reason, collector.hasCalls),
    ...(completion.usage ? { usage: toUsage(completion.usage) } : {}),
  });
  return parts;
}
