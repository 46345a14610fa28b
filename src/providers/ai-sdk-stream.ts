import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
} from '@ai-sdk/provider';
import type { ModelPart, ProviderMetadata, StopReason, Usage } from '../model/index.js';
import { streamEndedEarlyError, toUsage } from './kit/index.js';
import { AI_SDK_METADATA_KEY } from './ai-sdk-prompt.js';

/** Maps an AI SDK finish reason; `error` and anything unknown become `other`. */
export function toAiSdkStopReason(reason: LanguageModelV3FinishReason): StopReason {
  const unified = reason.unified;
  return unified === 'error' ? 'other' : unified;
}

/** Maps AI SDK usage; counts the provider left out are 0 or absent. */
export function toAiSdkUsage(usage: LanguageModelV3Usage): Usage {
  const input = usage.inputTokens.total ?? 0;
  const output = usage.outputTokens.total ?? 0;
  return toUsage({
    input,
    output,
    total: input + output,
    reasoning: usage.outputTokens.reasoning,
    cachedInput: usage.inputTokens.cacheRead,
    cacheWrite: usage.inputTokens.cacheWrite,
  });
}

/** The AI SDK metadata as Muster keeps it: nested under `aiSdk`, absent when empty. */
export function keptMetadata(
  metadata: SharedV3ProviderMetadata | undefined,
): { providerMetadata: ProviderMetadata } | Record<string, never> {
  if (metadata === undefined || Object.keys(metadata).length === 0) return {};
  return { providerMetadata: { [AI_SDK_METADATA_KEY]: metadata } };
}

function mergeMetadata(
  into: SharedV3ProviderMetadata,
  from: SharedV3ProviderMetadata | undefined,
): void {
  for (const [provider, values] of Object.entries(from ?? {})) {
    into[provider] = { ...into[provider], ...values };
  }
}

/**
 * Reads an AI SDK stream into parts: text and reasoning deltas as they arrive, each
 * reasoning block as a `reasoning` part (with its metadata, such as an Anthropic signature)
 * when it ends, tool calls (tool input streaming is assembled by the AI SDK provider, which
 * sends a `tool-call` at the end of each), then `finish`. An `error` part is thrown; calls the
 * provider ran itself are skipped. A stream without `finish` is an abort or a cut stream.
 */
export async function* aiSdkStreamParts(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  provider: string,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const reasoning = new Map<string, { text: string; metadata: SharedV3ProviderMetadata }>();
  const reader = stream.getReader();
  try {
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      const part = step.value;
      switch (part.type) {
        case 'text-delta':
          if (part.delta) yield { type: 'text-delta', text: part.delta };
          break;
        case 'reasoning-start': {
          const block = { text: '', metadata: {} };
          mergeMetadata(block.metadata, part.providerMetadata);
          reasoning.set(part.id, block);
          break;
        }
        case 'reasoning-delta': {
          const block = reasoning.get(part.id) ?? { text: '', metadata: {} };
          reasoning.set(part.id, block);
          block.text += part.delta;
          mergeMetadata(block.metadata, part.providerMetadata);
          if (part.delta) yield { type: 'reasoning-delta', text: part.delta };
          break;
        }
        case 'reasoning-end': {
          const block = reasoning.get(part.id) ?? { text: '', metadata: {} };
          reasoning.delete(part.id);
          mergeMetadata(block.metadata, part.providerMetadata);
          yield { type: 'reasoning', text: block.text, ...keptMetadata(block.metadata) };
          break;
        }
        case 'tool-call':
          if (part.providerExecuted) break;
          yield {
            type: 'tool-call',
            callId: part.toolCallId,
            name: part.toolName,
            argumentsText: part.input,
            ...keptMetadata(part.providerMetadata),
          };
          break;
        case 'error':
          throw part.error;
        case 'finish':
          yield {
            type: 'finish',
            stopReason: toAiSdkStopReason(part.finishReason),
            usage: toAiSdkUsage(part.usage),
            ...keptMetadata(part.providerMetadata),
          };
          return;
        default:
          break;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  throw streamEndedEarlyError(provider, signal);
}

/** The parts of a buffered (`doGenerate`) answer, in content order. */
export function aiSdkContentParts(
  content: readonly LanguageModelV3Content[],
  finishReason: LanguageModelV3FinishReason,
  usage: LanguageModelV3Usage,
  metadata: SharedV3ProviderMetadata | undefined,
): ModelPart[] {
  const parts: ModelPart[] = [];
  for (const item of content) {
    if (item.type === 'text' && item.text) parts.push({ type: 'text-delta', text: item.text });
    if (item.type === 'reasoning') {
      if (item.text) parts.push({ type: 'reasoning-delta', text: item.text });
      parts.push({ type: 'reasoning', text: item.text, ...keptMetadata(item.providerMetadata) });
    }
    if (item.type === 'tool-call' && !item.providerExecuted) {
      parts.push({
        type: 'tool-call',
        callId: item.toolCallId,
        name: item.toolName,
        argumentsText: item.input,
        ...keptMetadata(item.providerMetadata),
      });
    }
  }
  parts.push({
    type: 'finish',
    stopReason: toAiSdkStopReason(finishReason),
    usage: toAiSdkUsage(usage),
    ...keptMetadata(metadata),
  });
  return parts;
}
