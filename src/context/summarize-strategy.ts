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
    const dropped = selection.dropped
      .flatMap((k) => layout.units[k]!.indices)
      .sort((a, b) => a - b);
    if (memo && sameSet(memo.covered, dropped)) {
      return {
        messages: withSummary(transcript, dropped, memo.message),
        sent: selection.sent,
        removed: dropped.length,
        summarized,
        memo,
      };
    }
    if (round === ROUNDS - 1) throw contextLimitError(selection.sent, limits, memo?.size.tokens);
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

/** The transcript without `dropped` (ascending), with `summary` where the first of them stood. */
function withSummary(
  transcript: readonly ModelMessage[],
  dropped: readonly number[],
  summary: SystemMessage,
): ModelMessage[] {
  const gone = new Set(dropped);
  const out: ModelMessage[] = [];
  for (const [i, m] of transcript.entries()) {
    if (i === dropped[0]) out.push(summary);
    if (!gone.has(i)) out.push(m);
  }
  return out;
}

function sameSet(a: ReadonlySet<number>, b: readonly number[]): boolean {
  return a.size === b.length && b.every((i) => a.has(i));
}

function isSubset(a: ReadonlySet<number>, b: readonly number[]): boolean {
  const set = new Set(b);
  for (const i of a) if (!set.has(i)) return false;
  return true;
}
