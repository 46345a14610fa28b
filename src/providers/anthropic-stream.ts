import type { Anthropic } from '@anthropic-ai/sdk';
import type { ModelPart, StopReason, Usage } from '../model/index.js';
import { ToolCallAssembler, streamEndedEarlyError, toUsage } from './kit/index.js';
import { ANTHROPIC_PROVIDER, ANTHROPIC_PROVIDER_ID } from './anthropic-mapping.js';

/** Maps a Messages `stop_reason`. */
export function toAnthropicStopReason(reason: string | null | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Token counts of a turn as the API reports them, start and delta merged. */
export interface AnthropicUsageCounts {
  input: number;
  output: number;
  cacheRead?: number | null | undefined;
  cacheWrite?: number | null | undefined;
}

/**
 * Neutral usage: `input_tokens` counts only uncached input, so cache reads and writes are
 * added to `inputTokens` and reported on their own as well.
 */
export function toAnthropicUsage(counts: AnthropicUsageCounts): Usage {
  const read = counts.cacheRead ?? 0;
  const write = counts.cacheWrite ?? 0;
  const input = counts.input + read + write;
  return toUsage({
    input,
    output: counts.output,
    total: input + counts.output,
    cachedInput: counts.cacheRead,
    cacheWrite: counts.cacheWrite,
  });
}

interface ThinkingBlock {
  text: string;
  signature: string;
  redactedData?: string;
}

/**
 * Reads a Messages event stream into parts: text and thinking as they arrive, each thinking
 * block (with its signature, or the redacted data) as a `reasoning` part when it stops, tool
 * calls once the stream is done, then `finish`. A stream that ends without `message_stop`
 * is an abort or a truncated stream.
 */
export async function* anthropicStreamParts(
  stream: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  const calls = new ToolCallAssembler();
  const thinking = new Map<number, ThinkingBlock>();
  const counts: AnthropicUsageCounts = { input: 0, output: 0 };
  let stopReason: string | null | undefined;
  for await (const event of stream) {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        counts.input = usage.input_tokens;
        counts.output = usage.output_tokens;
        counts.cacheRead = usage.cache_read_input_tokens;
        counts.cacheWrite = usage.cache_creation_input_tokens;
        break;
      }
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'tool_use') calls.add(event.index, { id: block.id, name: block.name });
        if (block.type === 'thinking')
          thinking.set(event.index, { text: block.thinking, signature: block.signature });
        if (block.type === 'redacted_thinking')
          thinking.set(event.index, { text: '', signature: '', redactedData: block.data });
        if (block.type === 'text' && block.text) yield { type: 'text-delta', text: block.text };
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta' && delta.text)
          yield { type: 'text-delta', text: delta.text };
        if (delta.type === 'input_json_delta')
          calls.add(event.index, { argumentsText: delta.partial_json });
        const block = thinking.get(event.index);
        if (delta.type === 'thinking_delta' && block) {
          block.text += delta.thinking;
          if (delta.thinking) yield { type: 'reasoning-delta', text: delta.thinking };
        }
        if (delta.type === 'signature_delta' && block) block.signature += delta.signature;
        break;
      }
      case 'content_block_stop': {
        const block = thinking.get(event.index);
        if (block) yield reasoningPart(block);
        break;
      }
      case 'message_delta': {
        stopReason = event.delta.stop_reason;
        const usage = event.usage;
        counts.output = usage.output_tokens;
        if (typeof usage.input_tokens === 'number') counts.input = usage.input_tokens;
        if (typeof usage.cache_read_input_tokens === 'number')
          counts.cacheRead = usage.cache_read_input_tokens;
        if (typeof usage.cache_creation_input_tokens === 'number')
          counts.cacheWrite = usage.cache_creation_input_tokens;
        break;
      }
      case 'message_stop':
        yield* calls.parts(ANTHROPIC_PROVIDER);
        yield {
          type: 'finish',
          stopReason: toAnthropicStopReason(stopReason),
          usage: toAnthropicUsage(counts),
        };
        return;
      default:
        break;
    }
  }
  throw streamEndedEarlyError(ANTHROPIC_PROVIDER, signal);
}

function reasoningPart(block: ThinkingBlock): ModelPart {
  const meta =
    block.redactedData !== undefined
      ? { redactedData: block.redactedData }
      : { signature: block.signature };
  return {
    type: 'reasoning',
    text: block.text,
    providerMetadata: { [ANTHROPIC_PROVIDER_ID]: meta },
  };
}

/** The parts of a buffered (non-streamed) message, in content order. */
export function anthropicMessageParts(message: Anthropic.Message): ModelPart[] {
  const parts: ModelPart[] = [];
  const calls = new ToolCallAssembler();
  for (const [index, block] of message.content.entries()) {
    if (block.type === 'text' && block.text) parts.push({ type: 'text-delta', text: block.text });
    if (block.type === 'thinking') {
      if (block.thinking) parts.push({ type: 'reasoning-delta', text: block.thinking });
      parts.push(reasoningPart({ text: block.thinking, signature: block.signature }));
    }
    if (block.type === 'redacted_thinking')
      parts.push(reasoningPart({ text: '', signature: '', redactedData: block.data }));
    if (block.type === 'tool_use') {
      calls.add(index, {
        id: block.id,
        name: block.name,
        argumentsText: JSON.stringify(block.input),
      });
    }
  }
  parts.push(...calls.parts(ANTHROPIC_PROVIDER));
  parts.push({
    type: 'finish',
    stopReason: toAnthropicStopReason(message.stop_reason),
    usage: toAnthropicUsage({
      input: message.usage.input_tokens,
      output: message.usage.output_tokens,
      cacheRead: message.usage.cache_read_input_tokens,
      cacheWrite: message.usage.cache_creation_input_tokens,
    }),
  });
  return parts;
}
