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
  AssistantMessage,
  ModelPart,
  ModelRequest,
  StopReason,
  Usage,
} from '../model/index.js';
import {
  ToolCallAssembler,
  imageUrl,
  toUsage,
  toolCallArgumentsText,
  writeTranscript,
} from './kit/index.js';
import type { TranscriptWriter } from './kit/index.js';
import { chatOutputFields } from './openai-output-format.js';
import { withOpenAIOptions } from './openai-request-options.js';
import type { OpenAIRequestShape } from './openai-request-options.js';

/** The provider label of the Chat Completions client. */
export const CHAT_PROVIDER = 'openai.chat';

/** The parts of a chat completion request that do not depend on streaming. */
export type ChatRequestBody = Omit<ChatCompletionCreateParamsBase, 'stream' | 'stream_options'>;

const CHAT_SHAPE: OpenAIRequestShape<ChatRequestBody> = {
  provider: CHAT_PROVIDER,
  reserved: ['model', 'messages', 'tools', 'stream', 'stream_options'],
  maxOutputTokens: 'max_completion_tokens',
  namedToolChoice: (name) => ({ type: 'function', function: { name } }),
  output: chatOutputFields,
};

/**
 * Builds the chat completion body of a neutral request. Optional fields are sent only when
 * the request sets them; `output` becomes a `json_schema` `response_format` next to the tools,
 * and `providerOptions.openai` is merged last (see `withOpenAIOptions`).
 */
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
  return withOpenAIOptions(body, request, CHAT_SHAPE);
}

const CHAT_WRITER: TranscriptWriter<ChatCompletionMessageParam, ChatCompletionContentPart> = {
  text: (text) => ({ type: 'text', text }),
  image: (image) => {
    const url = imageUrl(image);
    return url === undefined ? undefined : { type: 'image_url', image_url: { url } };
  },
  system: (content) => ({ role: 'system', content }),
  user: (content) => ({ role: 'user', content }),
  assistant: (message) => {
    const assistant = toAssistantMessage(message);
    return assistant ? [assistant] : [];
  },
  toolResult: (message) => ({
    role: 'tool',
    tool_call_id: message.callId,
    content: message.content,
  }),
};

/**
 * Maps the transcript to chat messages. Chat tool messages cannot carry images, so images a
 * tool returned follow the run of tool messages in one user message.
 */
export function toChatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const system: ChatCompletionMessageParam[] = request.system
    ? [{ role: 'system', content: request.system }]
    : [];
  return [...system, ...writeTranscript(request.messages, CHAT_WRITER)];
}

function toAssistantMessage(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  let text = '';
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const part of message.content) {
    if (part.type === 'text') text += part.text;
    if (part.type === 'tool-call') {
      calls.push({
        id: part.callId,
        type: 'function',
        function: { name: part.name, arguments: toolCallArgumentsText(part) },
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
export function toChatUsage(usage: CompletionUsage): Usage {
  return toUsage({
    input: usage.prompt_tokens,
    output: usage.completion_tokens,
    total: usage.total_tokens,
    reasoning: usage.completion_tokens_details?.reasoning_tokens,
    cachedInput: usage.prompt_tokens_details?.cached_tokens,
  });
}

/** Reasoning text of a delta or message: `reasoning_content` (DeepSeek, vLLM) or `reasoning`. */
export function reasoningText(source: object): string | undefined {
  const record = source as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof record.reasoning_content === 'string') return record.reasoning_content;
  if (typeof record.reasoning === 'string') return record.reasoning;
  return undefined;
}

/**
 * Adds the tool call fragments of one streamed delta, keyed by their `index`. Some
 * OpenAI-compatible servers (older llama.cpp and vLLM builds) leave the index out: such a
 * fragment opens a new call when it brings a new id or name, and continues the last one
 * otherwise.
 */
export function addChatToolCalls(
  calls: ToolCallAssembler,
  fragments: readonly ChatCompletionChunk.Choice.Delta.ToolCall[],
): void {
  for (const fragment of fragments) {
    const piece = {
      id: fragment.id,
      name: fragment.function?.name,
      argumentsText: fragment.function?.arguments,
    };
    if (typeof fragment.index === 'number') calls.add(fragment.index, piece);
    else calls.addUnindexed(piece);
  }
}

/** The parts of a buffered (non-streamed) chat completion. */
export function completionParts(completion: ChatCompletion): ModelPart[] {
  const choice = completion.choices[0];
  if (!choice) {
    throw new ModelError(
      'MODEL_RESPONSE_INVALID',
      `The ${CHAT_PROVIDER} API answered without a choice; retry the request.`,
      { isRetryable: true, details: { provider: CHAT_PROVIDER } },
    );
  }
  const parts: ModelPart[] = [];
  const message = choice.message;
  const reasoning = reasoningText(message);
  if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
  if (message.content) parts.push({ type: 'text-delta', text: message.content });
  else if (message.refusal) parts.push({ type: 'text-delta', text: message.refusal });
  const calls = new ToolCallAssembler();
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    if (call.type !== 'function') continue;
    calls.add(index, {
      id: call.id,
      name: call.function.name,
      argumentsText: call.function.arguments,
    });
  }
  parts.push(...calls.parts(CHAT_PROVIDER));
  parts.push({
    type: 'finish',
    stopReason: toStopReason(choice.finish_reason, calls.hasCalls),
    ...(completion.usage ? { usage: toChatUsage(completion.usage) } : {}),
  });
  return parts;
}
