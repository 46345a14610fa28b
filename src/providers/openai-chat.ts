import type { OpenAI } from 'openai';
import { abortedError } from '../errors/index.js';
import type { ModelClientV1, ModelPart, ModelRequest, Usage } from '../model/index.js';
import {
  ChatToolCallCollector,
  completionParts,
  reasoningText,
  toChatRequestBody,
  toStopReason,
  toUsage,
} from './openai-chat-mapping.js';
import type { ChatRequestBody } from './openai-chat-mapping.js';
import { openaiModel, truncatedStreamError } from './openai-shared.js';
import type { OpenAIProviderOptions } from './openai-shared.js';

const PROVIDER = 'openai.chat';

/**
 * A model client on the OpenAI Chat Completions API (`POST /chat/completions`), which most
 * OpenAI-compatible servers (vLLM, DeepSeek, Ollama, LM Studio) also speak. Creating it does
 * no I/O; the client is built, and the API key looked up, on the first request.
 *
 * @example
 * ```ts
 * import { openaiChat } from 'muster/openai';
 * const model = openaiChat({ baseURL: 'http://localhost:8000/v1', modelName: 'qwen3' });
 * ```
 */
export function openaiChat(options: OpenAIProviderOptions = {}): ModelClientV1 {
  return openaiModel(PROVIDER, options, chatTurn);
}

async function* chatTurn(
  client: OpenAI,
  request: ModelRequest,
  modelName: string,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const body = toChatRequestBody(request, modelName);
  if (request.stream) yield* streamChat(client, body, signal);
  else {
    const completion = await client.chat.completions.create({ ...body, stream: false }, { signal });
    yield* completionParts(completion, PROVIDER);
  }
}

async function* streamChat(
  client: OpenAI,
  body: ChatRequestBody,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  const calls = new ChatToolCallCollector();
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = toUsage(chunk.usage);
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) continue;
    const delta = choice.delta;
    const reasoning = delta ? reasoningText(delta) : undefined;
    if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
    if (delta?.content) yield { type: 'text-delta', text: delta.content };
    if (delta?.refusal) yield { type: 'text-delta', text: delta.refusal };
    if (delta?.tool_calls) calls.add(delta.tool_calls);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  // The client ends the stream quietly when the signal fires; that is an abort, not an end.
  if (signal.aborted) throw abortedError(`The ${PROVIDER} stream`, signal.reason);
  if (finishReason === undefined) throw truncatedStreamError(PROVIDER);
  yield* calls.parts(PROVIDER);
  yield {
    type: 'finish',
    stopReason: toStopReason(finishReason, calls.hasCalls),
    ...(usage ? { usage } : {}),
  };
}
