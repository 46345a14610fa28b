import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../agent/index.js';
import type { QueryRawStreamEvent, QueryStreamEventMessage, QueryUsage } from './query-types.js';

type DeltaEvent = Extract<AgentEvent, { type: 'model.delta' }>;
type CompletedEvent = Extract<AgentEvent, { type: 'model.completed' }>;

const NO_USAGE: QueryUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};

/**
 * The partial assistant messages of `includePartialMessages`: a run's `model.delta` events
 * (text and reasoning, as they arrive) as `stream_event` messages holding Anthropic raw
 * stream events. A turn's first delta opens its message (`message_start`); a change of kind
 * closes the open block and opens a `text` or `thinking` one; the turn's `model.completed`
 * closes the block, adds its tool calls as `tool_use` blocks (their whole arguments as one
 * `input_json_delta`, since tool calls arrive whole), then `message_delta` and
 * `message_stop`, before the mapper yields the `assistant` message with the same id.
 */
export class PartialMessageStream {
  readonly #sessionId: string;
  #messageId: string | undefined;
  #block: { kind: DeltaEvent['kind']; index: number } | undefined;
  #blocks = 0;

  constructor(sessionId: string) {
    this.#sessionId = sessionId;
  }

  /** The stream events of one text or reasoning delta. */
  delta(event: DeltaEvent, model: string): QueryStreamEventMessage[] {
    if (event.content === '') return [];
    const out = this.#open(model);
    if (this.#block?.kind !== event.kind) {
      out.push(...this.#closeBlock());
      const index = this.#blocks++;
      this.#block = { kind: event.kind, index };
      out.push({
        type: 'content_block_start',
        index,
        content_block:
          event.kind === 'text'
            ? { type: 'text', text: '' }
            : { type: 'thinking', thinking: '', signature: '' },
      });
    }
    const index = this.#block.index;
    out.push({
      type: 'content_block_delta',
      index,
      delta:
        event.kind === 'text'
          ? { type: 'text_delta', text: event.content }
          : { type: 'thinking_delta', thinking: event.content },
    });
    return out.map((e) => this.#message(e));
  }

  /**
   * The stream events that end the turn `event` completes, and the id its `assistant`
   * message takes (the `message_start`'s).
   */
  complete(
    event: CompletedEvent,
    model: string,
    usage: QueryUsage,
  ): { messages: QueryStreamEventMessage[]; messageId: string } {
    const out = this.#open(model);
    out.push(...this.#closeBlock());
    for (const call of event.toolCalls) {
      const index = this.#blocks++;
      out.push(
        {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: call.callId, name: call.name, input: {} },
        },
        {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: argumentsJson(call.arguments) },
        },
        { type: 'content_block_stop', index },
      );
    }
    out.push(
      {
        type: 'message_delta',
        delta: { stop_reason: event.stopReason, stop_sequence: null },
        usage,
      },
      { type: 'message_stop' },
    );
    const messageId = this.#messageId!;
    this.#messageId = undefined;
    this.#blocks = 0;
    return { messages: out.map((e) => this.#message(e)), messageId };
  }

  /** `message_start` when no message is open (none otherwise). */
  #open(model: string): QueryRawStreamEvent[] {
    if (this.#messageId !== undefined) return [];
    this.#messageId = `msg_${randomUUID().replace(/-/g, '')}`;
    return [
      {
        type: 'message_start',
        message: {
          id: this.#messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: NO_USAGE,
        },
      },
    ];
  }

  #closeBlock(): QueryRawStreamEvent[] {
    const block = this.#block;
    this.#block = undefined;
    return block ? [{ type: 'content_block_stop', index: block.index }] : [];
  }

  #message(event: QueryRawStreamEvent): QueryStreamEventMessage {
    return {
      type: 'stream_event',
      event,
      parent_tool_use_id: null,
      uuid: randomUUID(),
      session_id: this.#sessionId,
    };
  }
}

/** A call's arguments as JSON text (arguments kept as text are passed as they are). */
function argumentsJson(args: unknown): string {
  if (typeof args === 'string') return args;
  return JSON.stringify(args ?? {});
}
