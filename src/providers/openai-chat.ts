import type { OpenAI } from 'openai';
import type { ModelClientV1, ModelPart, Usage } from '../model/index.js';
import { ToolCallAssembler, streamEndedEarlyError } from './kit/index.js';
import {
  CHAT_PROVIDER,
  addChatToolCalls,
  completionParts,
  reasoningText,
  toChatRequestBody,
  toChatUsage,
  toStopReason,
} from './openai-chat-mapping.js';
import type { ChatRequestBody } from './openai-chat-mapping.js';
import { openaiModel } from './openai-shared.js';
import type { OpenAIApi, OpenAIProviderOptions } from './openai-shared.js';

/**
 * A model client on the OpenAI Chat Completions API (`POST /chat/completions`), which most
 * OpenAI-compatible servers (vLLM, DeepSeek, Ollama, LM Studio) also speak. Creating it does
 * no I/O; the client is built, and the API key looked up, on the first request.
 * `maxOutputTokens` is sent as `max_completion_tokens`, `toolChoice` as `tool_choice`, and
 * `providerOptions.openai` fields are added to the body; an entry that would set `model`,
 * `messages`, `tools`, `stream`, `stream_options` or a field a request option already set
 * fails with `INVALID_CONFIGURATION` before anything is sent. A typed final answer (`output`)
 * is sent as `response_format: { type: 'json_schema', json_schema }` alongside the tools, and
 * then `providerOptions.openai.response_format` is refused the same way (use `run({ output })`).
 * A refusal streams back as text, so the agent's answer validation reports it.
 *
 * @example
 * ```ts
 * import { openaiChat } from 'muster-agent/openai';
 * const model = openaiChat({ baseURL: 'http://localhost:8000/v1', modelName: 'qwen3' });
 * ```
 */
export function openaiChat(options: OpenAIProviderOptions = {}): ModelClientV1 {
  return openaiModel(CHAT_API, options);
}

const CHAT_API: OpenAIApi<ChatRequestBody> = {
  provider: CHAT_PROVIDER,
  body: toChatRequestBody,
  stream: streamChat,
  buffered: async (client, body, signal) =>
    completionParts(
      await client.chat.completions.create({ ...body, stream: false }, { signal, maxRetries: 0 }),
    ),
};

async function* streamChat(
  client: OpenAI,
  body: ChatRequestBody,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal, maxRetries: 0 },
  );
  const calls = new ToolCallAssembler();
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = toChatUsage(chunk.usage);
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) continue;
    const delta = choice.delta;
    const reasoning = delta ? reasoningText(delta) : undefined;
    if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
    if (delta?.content) yield { type: 'text-delta', text: delta.content };
    if (delta?.refusal) yield { type: 'text-delta', text: delta.refusal };
    if (delta?.tool_calls) addChatToolCalls(calls, delta.tool_calls);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (signal.aborted || finishReason === undefined)
    throw streamEndedEarlyError(CHAT_PROVIDER, signal);
  yield* calls.parts(CHAT_PROVIDER);
  yield {
    type: 'finish',
    stopReason: toStopReason(finishReason, calls.hasCalls),
    ...(usage ? { usage } : {}),
  };
}
