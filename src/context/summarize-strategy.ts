import { MusterError, abortedError } from '../errors/index.js';
import type { ModelMessage, SystemMessage } from '../model/index.js';
import { raceAbort } from '../util/index.js';
import { contextLimitError, summarizerError } from './context-limit-error.js';
import type { ContextMetrics, MessageMeter, MessageSize } from './context-measure.js';
import type { ContextSummarizer } from './context-options.js';
import { selectUnits } from './select-units.js';
import type { ContextLimits } from './select-units.js';
import type { TranscriptLayout } from './transcript-units.js';

/** A summary made during a run: the transcript indices it covers and its message. */
export interface SummaryMemo {
  readonly covered: ReadonlySet<number>;
  readonly message: SystemMessage;
  readonly size: MessageSize;
}

/** What one request sends under `summarize`. */
export interface SummarizedContext {
  readonly messages: ModelMessage[];
  readonly sent: ContextMetrics;
  readonly removed: number;
  /** True when the summarizer was called for this request. */
  readonly summarized: boolean;
  readonly memo: SummaryMemo;
}

/** Everything the summarize strategy needs for one request. */
export interface SummarizeInput {
  readonly transcript: readonly ModelMessage[];
  readonly layout: TranscriptLayout;
  readonly limits: ContextLimits;
  readonly meter: MessageMeter;
  readonly summarize: ContextSummarizer;
  readonly signal: AbortSignal;
  /** The run's previous summary, reused when it covers what is left out now. */
  readonly memo: SummaryMemo | undefined;
}

// Once with no summary (or the run's previous one), once with the new summary counted, once
// more if that summary pushed more messages out; a summary that keeps doing so is an error.
const ROUNDS = 3;

/**
 * The `summarize` strategy: the units the truncate rule would leave out are replaced by one
 * system message holding the host summarizer's text, placed where they stood. The summary is
 * counted against the limits; when it pushes more messages out, they are summarized too (the
 * previous summary leads the summarizer's input, so it is extended, not restarted).
 */
export async function summarizeContext(input: SummarizeInput): Promise<SummarizedContext> {
  const { transcript, layout, limits, meter } = input;
  let memo = input.memo;
  let summarized = false;
  for (let round = 0; ; round++) {
    const reserve = memo ? { messages: 1, ...memo.size } : undefined;
    const selection = selectUnits(layout, limits, reserve);
    if (!selection.ok) throw contextLimitError(selection.minimum, limits, memo?.size.tokens);
    const dropped = selection.dropped.flatMap((k) => layout.units[k]!.indices);
    // a summary that covers at least what must go is sent in place of what it covers
    if (memo && dropped.every((i) => memo!.covered.has(i))) {
      return {
        messages: withSummary(transcript, memo.covered, memo.message),
        sent: sentWith(layout, memo),
        removed: memo.covered.size,
        summarized,
        memo,
      };
    }
    if (round === ROUNDS - 1) throw summarizerError('summary-too-long');
    dropped.sort((a, b) => a - b);
    const extend = memo !== undefined && isSubset(memo.covered, dropped);
    const messages = extend
      ? [memo!.message, ...dropped.filter((i) => !memo!.covered.has(i)).map((i) => transcript[i]!)]
      : dropped.map((i) => transcript[i]!);
    const text = await callSummarizer(input.summarize, messages, input.signal);
    summarized = true;
    const message: SystemMessage = {
      role: 'system',
      content: `Summary of the ${dropped.length} earliest messages of this conversation, which are not shown:\n${text}`,
    };
    memo = { covered: new Set(dropped), message, size: meter.message(message) };
  }
}

async function callSummarizer(
  summarize: ContextSummarizer,
  messages: readonly ModelMessage[],
  signal: AbortSignal,
): Promise<string> {
  let text: unknown;
  try {
    const call = Promise.resolve().then(() => summarize(messages, { signal }));
    text = await raceAbort(call, signal, 'The context summary');
  } catch (err) {
    if (MusterError.isInstance(err) && err.code === 'ABORTED') throw err;
    if (signal.aborted) throw abortedError('The context summary', signal.reason);
    throw summarizerError('summarizer-failed', err);
  }
  if (typeof text !== 'string' || text.trim() === '') throw summarizerError('summary-empty');
  return text;
}

/** The transcript without `gone`, with `summary` where the first of them stood. */
function withSummary(
  transcript: readonly ModelMessage[],
  gone: ReadonlySet<number>,
  summary: SystemMessage,
): ModelMessage[] {
  const out: ModelMessage[] = [];
  let placed = false;
  for (const [i, m] of transcript.entries()) {
    if (!gone.has(i)) out.push(m);
    else if (!placed) {
      out.push(summary);
      placed = true;
    }
  }
  return out;
}

/** The size of a request sending the summary in place of the messages it covers. */
function sentWith(layout: TranscriptLayout, memo: SummaryMemo): ContextMetrics {
  let messages = layout.pinnedMessages + 1;
  let tokens = layout.pinnedSize.tokens + memo.size.tokens;
  let bytes = layout.pinnedSize.bytes + memo.size.bytes;
  for (const unit of layout.units) {
    if (memo.covered.has(unit.indices[0]!)) continue;
    messages += unit.indices.length;
    tokens += unit.tokens;
    bytes += unit.bytes;
  }
  return { messages, tokens, bytes };
}

function isSubset(a: ReadonlySet<number>, b: readonly number[]): boolean {
  const set = new Set(b);
  for (const i of a) if (!set.has(i)) return false;
  return true;
}
