import type { ContextMetrics } from './context-measure.js';
import type { TranscriptLayout } from './transcript-units.js';

/** The limits one model request must respect. `maxBytes` is unlimited when absent. */
export interface ContextLimits {
  readonly maxTokens: number;
  readonly maxMessages: number;
  readonly maxBytes?: number;
}

/** What a request sends besides the kept units (a summary), counted against the limits. */
export interface ContextReserve {
  readonly messages: number;
  readonly tokens: number;
  readonly bytes: number;
}

/** The units left out (positions in `layout.units`, ascending) and the size of what is sent. */
export type UnitSelection =
  | { readonly ok: true; readonly dropped: readonly number[]; readonly sent: ContextMetrics }
  | { readonly ok: false; readonly minimum: ContextMetrics };

const NO_RESERVE: ContextReserve = { messages: 0, tokens: 0, bytes: 0 };

/** True when `size` is within every limit. */
export function withinLimits(size: ContextMetrics, limits: ContextLimits): boolean {
  return (
    size.tokens <= limits.maxTokens &&
    size.messages <= limits.maxMessages &&
    (limits.maxBytes === undefined || size.bytes <= limits.maxBytes)
  );
}

/**
 * Chooses what a request leaves out, turn by turn. Always sent: the pinned messages, the
 * newest user message and the newest unit (the latest results the model must answer). Then,
 * newest first: the earlier units of the newest turn, one by one, and once all of them fit,
 * whole earlier turns. What is left out is always the oldest part, so the model sees one
 * unbroken recent stretch of the conversation. Fails (`ok: false`) when the always-sent part
 * alone is over a limit.
 */
export function selectUnits(
  layout: TranscriptLayout,
  limits: ContextLimits,
  reserve: ContextReserve = NO_RESERVE,
): UnitSelection {
  const { units, newestUser } = layout;
  const last = units.length - 1;
  const base: ContextMetrics = {
    messages: layout.pinnedMessages + reserve.messages,
    tokens: layout.pinnedSize.tokens + reserve.tokens,
    bytes: layout.pinnedSize.bytes + reserve.bytes,
  };
  let messages = base.messages;
  let tokens = base.tokens;
  let bytes = base.bytes;
  // the units that may be left out, oldest first
  const optional: number[] = [];
  for (const [k, unit] of units.entries()) {
    if (k === newestUser || k === last) {
      messages += unit.indices.length;
      tokens += unit.tokens;
      bytes += unit.bytes;
    } else optional.push(k);
  }
  const minimum = { messages, tokens, bytes };
  if (!withinLimits(minimum, limits)) return { ok: false, minimum };
  // add optional units newest first while they fit; in earlier turns only whole turns count
  let cut = optional.length;
  let turnMessages = 0;
  let turnTokens = 0;
  let turnBytes = 0;
  for (let c = optional.length - 1; c >= 0; c--) {
    const k = optional[c]!;
    const unit = units[k]!;
    turnMessages += unit.indices.length;
    turnTokens += unit.tokens;
    turnBytes += unit.bytes;
    // a unit of the newest turn may be cut before; an earlier turn only at its start (or at
    // the very start of the transcript)
    const boundary = k > newestUser || unit.user || c === 0;
    if (!boundary) continue;
    const next = {
      messages: messages + turnMessages,
      tokens: tokens + turnTokens,
      bytes: bytes + turnBytes,
    };
    if (!withinLimits(next, limits)) break;
    messages = next.messages;
    tokens = next.tokens;
    bytes = next.bytes;
    turnMessages = turnTokens = turnBytes = 0;
    cut = c;
  }
  return { ok: true, dropped: optional.slice(0, cut), sent: { messages, tokens, bytes } };
}
