import type { ModelMessage } from '../model/index.js';
import type { MessageMeter, MessageSize } from './context-measure.js';

/**
 * Messages that are kept or left out together: a user message alone, an assistant message
 * with the results of every call it made, or a result whose call is not in the transcript.
 */
export interface TranscriptUnit {
  /** Transcript indices, ascending. */
  readonly indices: number[];
  tokens: number;
  bytes: number;
  /** True for a user message: a turn starts here. */
  readonly user: boolean;
}

/** A transcript cut into what is always sent and what may be left out. */
export interface TranscriptLayout {
  /** System (and developer) messages: always sent, where they stand. */
  readonly pinned: readonly number[];
  /** How many messages are always sent besides the units: the pinned ones and the preamble. */
  readonly pinnedMessages: number;
  /** The system prompt, the pinned messages and the preamble. */
  readonly pinnedSize: MessageSize;
  /** Every other message, in units, in transcript order. */
  readonly units: readonly TranscriptUnit[];
  /** The position in `units` of the newest user message, or -1 when there is none. */
  readonly newestUser: number;
}

/**
 * Cuts a transcript into units. A tool result joins the assistant message that made its call
 * (wherever the result stands), so no unit ever separates a call from its result. `fixed` is
 * the size of what every request sends outside the transcript (the system prompt and the
 * preamble messages, `fixedMessages` of them), counted as pinned.
 */
export function layoutTranscript(
  messages: readonly ModelMessage[],
  meter: MessageMeter,
  fixed: MessageSize,
  fixedMessages = 0,
): TranscriptLayout {
  const pinned: number[] = [];
  const units: TranscriptUnit[] = [];
  const byCall = new Map<string, TranscriptUnit>();
  let pinnedTokens = fixed.tokens;
  let pinnedBytes = fixed.bytes;
  let newestUser = -1;
  for (const [i, m] of messages.entries()) {
    const size = meter.message(m);
    if (m.role === 'system') {
      pinned.push(i);
      pinnedTokens += size.tokens;
      pinnedBytes += size.bytes;
      continue;
    }
    const owner = m.role === 'tool' ? byCall.get(m.callId) : undefined;
    if (owner) {
      owner.indices.push(i);
      owner.tokens += size.tokens;
      owner.bytes += size.bytes;
      continue;
    }
    const unit: TranscriptUnit = {
      indices: [i],
      tokens: size.tokens,
      bytes: size.bytes,
      user: m.role === 'user',
    };
    if (unit.user) newestUser = units.length;
    if (m.role === 'assistant') {
      for (const part of m.content) if (part.type === 'tool-call') byCall.set(part.callId, unit);
    }
    units.push(unit);
  }
  return {
    pinned,
    pinnedMessages: pinned.length + fixedMessages,
    pinnedSize: { tokens: pinnedTokens, bytes: pinnedBytes },
    units,
    newestUser,
  };
}
