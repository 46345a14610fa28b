import type { Anthropic } from '@anthropic-ai/sdk';
import type { ModelPart, StopReason, Usage } from '../model/index.js';
import { jsonText } from '../util/index.js';
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
 * is an abort or a truncated stream. With `answerTool` (a typed answer asked for as a tool),
 * the input of the first call of that tool streams as text, not as a tool call, and a turn
 * that called no other tool finishes with `stop`.
 */
export async function* anthropicStreamParts(
  stream: AsyncIterable<Anthropic.RawMessageStreamEvent>,
  signal: AbortSignal,
  answerTool?: string,
): AsyncGenerator<ModelPart> {
  const calls = new ToolCallAssembler();
  const answers = new AnswerCalls(answerTool);
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
        if (block.type === 'tool_use' && !answers.start(event.index, block))
          calls.add(event.index, { id: block.id, name: block.name });
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
        if (delta.type === 'input_json_delta') {
          const text = answers.delta(event.index, delta.partial_json);
          if (text === undefined) calls.add(event.index, { argumentsText: delta.partial_json });
          else if (text) yield { type: 'text-delta', text };
        }
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
        const text = answers.stop(event.index);
        if (text) yield { type: 'text-delta', text };
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
          stopReason: answers.stopReason(toAnthropicStopReason(stopReason), calls.hasCalls),
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

/**
 * The parts of a buffered (non-streamed) message, in content order; `answerTool` as in
 * {@link anthropicStreamParts}.
 */
export function anthropicMessageParts(
  message: Anthropic.Message,
  answerTool?: string,
): ModelPart[] {
  const parts: ModelPart[] = [];
  const calls = new ToolCallAssembler();
  const answers = new AnswerCalls(answerTool);
  for (const [index, block] of message.content.entries()) {
    if (block.type === 'text' && block.text) parts.push({ type: 'text-delta', text: block.text });
    if (block.type === 'thinking') {
      if (block.thinking) parts.push({ type: 'reasoning-delta', text: block.thinking });
      parts.push(reasoningPart({ text: block.thinking, signature: block.signature }));
    }
    if (block.type === 'redacted_thinking')
      parts.push(reasoningPart({ text: '', signature: '', redactedData: block.data }));
    if (block.type === 'tool_use' && answers.start(index, block)) {
      const text = answers.stop(index);
      if (text) parts.push({ type: 'text-delta', text });
    } else if (block.type === 'tool_use') {
      calls.add(index, {
        id: block.id,
        name: block.name,
        argumentsText: jsonText(block.input) ?? '{}',
      });
    }
  }
  parts.push(...calls.parts(ANTHROPIC_PROVIDER));
  parts.push({
    type: 'finish',
    stopReason: answers.stopReason(toAnthropicStopReason(message.stop_reason), calls.hasCalls),
    usage: toAnthropicUsage({
      input: message.usage.input_tokens,
      output: message.usage.output_tokens,
      cacheRead: message.usage.cache_read_input_tokens,
      cacheWrite: message.usage.cache_creation_input_tokens,
    }),
  });
  return parts;
}

/**
 * The calls of the answer tool in one turn (structured output in tool mode): the first one's
 * input is the answer's text; later ones are dropped, as their text would make the answer
 * invalid JSON. Without an answer tool it claims nothing.
 */
class AnswerCalls {
  readonly #name: string | undefined;
  readonly #indexes = new Set<number>();
  #first: { index: number; input: unknown; streamed: boolean } | undefined;

  constructor(name: string | undefined) {
    this.#name = name;
  }

  /** Claims a `tool_use` block that calls the answer tool; false for any other tool. */
  start(index: number, block: { readonly name: string; readonly input: unknown }): boolean {
    if (this.#name === undefined || block.name !== this.#name) return false;
    this.#indexes.add(index);
    this.#first ??= { index, input: block.input, streamed: false };
    return true;
  }

  /** The text of an input delta: `undefined` when the block is not an answer call. */
  delta(index: number, json: string): string | undefined {
    if (!this.#indexes.has(index)) return undefined;
    if (this.#first?.index !== index) return '';
    if (json) this.#first.streamed = true;
    return json;
  }

  /** The whole input as text when the first answer call stops without having streamed any. */
  stop(index: number): string {
    const first = this.#first;
    if (first?.index !== index || first.streamed) return '';
    first.streamed = true;
    return jsonText(first.input ?? {}) ?? '{}';
  }

  /** A turn that only answered finished its answer: `tool-calls` becomes `stop`. */
  stopReason(reason: StopReason, otherCalls: boolean): StopReason {
    return reason === 'tool-calls' && this.#first && !otherCalls ? 'stop' : reason;
  }
}
