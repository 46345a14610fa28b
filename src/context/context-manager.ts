import { MusterError } from '../errors/index.js';
import type { ModelMessage } from '../model/index.js';
import type { ContextCompactedEvent } from './context-events.js';
import { contextLimitError } from './context-limit-error.js';
import { MessageMeter } from './context-measure.js';
import type { ContextMetrics, MessageSize } from './context-measure.js';
import type { ContextOptions, ContextStrategy, ContextSummarizer } from './context-options.js';
import { selectUnits, withinLimits } from './select-units.js';
import type { ContextLimits } from './select-units.js';
import { summarizeContext } from './summarize-strategy.js';
import { SummaryMemos } from './summary-memos.js';
import { layoutTranscript } from './transcript-units.js';
import type { TranscriptLayout } from './transcript-units.js';

/** The default of `context.maxTokens`. */
export const DEFAULT_CONTEXT_MAX_TOKENS = 32_000;
/** The default of `context.maxMessages`. */
export const DEFAULT_CONTEXT_MAX_MESSAGES = 100;

/** The options a {@link ContextManager} reads (the agent's `context` options). */
export type ContextManagerOptions = Pick<
  ContextOptions,
  'maxTokens' | 'maxMessages' | 'maxBytes' | 'strategy' | 'tokenizer' | 'summarize'
>;

/** The request being shaped: who it is for, its system prompt, and where its event goes. */
export interface ContextRequest {
  readonly sessionId: string;
  readonly runId: string;
  /** The request's system prompt, counted against the limits. */
  readonly system?: string | undefined;
  /**
   * Messages every request of the run sends that are not part of the transcript (the
   * preloaded MCP context): placed just before the newest user message, always sent (pinned
   * like system messages), counted against the limits, never left out or summarized.
   */
  readonly preamble?: readonly ModelMessage[] | undefined;
  readonly signal: AbortSignal;
  readonly emit: (event: ContextCompactedEvent) => void;
}

/**
 * Shapes what each model request carries to the context limits (SPEC section 9), before the
 * request is sent. A transcript within the limits is sent as it is. Otherwise `truncate`
 * leaves out the oldest part, turn by turn, and `summarize` replaces it with a summary from
 * the host; either way system messages, the newest user message and the latest model turn
 * with its tool results are always sent, a tool call is never sent without its result (or the
 * reverse), and `context.compacted` reports the sizes before and after. The transcript itself
 * is never changed: only the request is shaped. When even the part that is always sent is over
 * a limit, the request fails with `AGENT_LIMIT_EXCEEDED` before anything is sent.
 *
 * @example
 * ```ts
 * const context = new ContextManager({ maxTokens: 8_000 });
 * const messages = await context.prepare(transcript, { sessionId, runId, signal, emit });
 * ```
 */
export class ContextManager {
  /** The limits every request is shaped to. */
  readonly limits: ContextLimits;
  readonly strategy: ContextStrategy;
  readonly #meter: MessageMeter;
  readonly #summarize: ContextSummarizer | undefined;
  /** The latest summary of each session, reused while it still fits and covers the same. */
  readonly #memos = new SummaryMemos();

  constructor(options: ContextManagerOptions = {}) {
    for (const key of ['maxTokens', 'maxMessages', 'maxBytes'] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `context.${key} must be a positive whole number, not ${String(value)}.`,
        );
      }
    }
    if (options.tokenizer !== undefined && typeof options.tokenizer !== 'function') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'context.tokenizer must be a function (text) => number of tokens.',
      );
    }
    this.limits = {
      maxTokens: options.maxTokens ?? DEFAULT_CONTEXT_MAX_TOKENS,
      maxMessages: options.maxMessages ?? DEFAULT_CONTEXT_MAX_MESSAGES,
      ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    };
    this.strategy = options.strategy ?? (options.summarize ? 'summarize' : 'truncate');
    if (this.strategy === 'summarize' && typeof options.summarize !== 'function') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        "context.strategy 'summarize' needs context.summarize, a function (messages, { signal }) => Promise<string>.",
      );
    }
    if (this.strategy === 'truncate' && options.summarize !== undefined) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        "context.summarize is given but context.strategy is 'truncate': remove one of them.",
      );
    }
    this.#meter = new MessageMeter(options.tokenizer);
    this.#summarize = options.summarize;
  }

  /**
   * The size of a request carrying `messages`, the system prompt `system` and the `preamble`
   * messages.
   */
  measure(
    messages: readonly ModelMessage[],
    system?: string,
    preamble: readonly ModelMessage[] = [],
  ): ContextMetrics {
    return this.#total(messages, this.#fixedSize(system, preamble), preamble.length);
  }

  /**
   * The tokens of a text as the limits count them: the tokenizer's count when one is given,
   * else the byte estimate (~4 bytes per token).
   */
  estimateTokens(text: string): number {
    return this.#meter.tokens(text);
  }

  /** The size of what every request sends besides the transcript. */
  #fixedSize(system: string | undefined, preamble: readonly ModelMessage[]): MessageSize {
    let { tokens, bytes } =
      system !== undefined && system !== '' ? this.#meter.text(system) : { tokens: 0, bytes: 0 };
    for (const m of preamble) {
      const size = this.#meter.message(m);
      tokens += size.tokens;
      bytes += size.bytes;
    }
    return { tokens, bytes };
  }

  #total(messages: readonly ModelMessage[], fixed: MessageSize, extra: number): ContextMetrics {
    let { tokens, bytes } = fixed;
    for (const m of messages) {
      const size = this.#meter.message(m);
      tokens += size.tokens;
      bytes += size.bytes;
    }
    return { messages: messages.length + extra, tokens, bytes };
  }

  /**
   * The messages to send for `transcript` (a new array; the transcript is not changed).
   * Emits `context.compacted` when something was left out. Throws `AGENT_LIMIT_EXCEEDED` when
   * the request cannot fit, and `ABORTED` when `signal` fires during a summary.
   */
  async prepare(
    transcript: readonly ModelMessage[],
    request: ContextRequest,
  ): Promise<ModelMessage[]> {
    const preamble = request.preamble ?? [];
    const fixed = this.#fixedSize(request.system, preamble);
    const before = this.#total(transcript, fixed, preamble.length);
    if (withinLimits(before, this.limits)) return withPreamble(transcript.slice(), preamble);
    const layout = layoutTranscript(transcript, this.#meter, fixed, preamble.length);
    const shaped =
      this.strategy === 'summarize'
        ? await this.#summarized(transcript, layout, request)
        : this.#truncated(transcript, layout);
    request.emit({
      type: 'context.compacted',
      timestamp: new Date().toISOString(),
      sessionId: request.sessionId,
      runId: request.runId,
      strategy: this.strategy,
      before,
      after: shaped.sent,
      removedMessages: shaped.removed,
      ...(shaped.summarized !== undefined ? { summarized: shaped.summarized } : {}),
    });
    return withPreamble(shaped.messages, preamble);
  }

  #truncated(transcript: readonly ModelMessage[], layout: TranscriptLayout): Shaped {
    const selection = selectUnits(layout, this.limits);
    if (!selection.ok) throw contextLimitError(selection.minimum, this.limits);
    const gone = new Set(selection.dropped.flatMap((k) => layout.units[k]!.indices));
    return {
      messages: transcript.filter((_, i) => !gone.has(i)),
      sent: selection.sent,
      removed: gone.size,
    };
  }

  async #summarized(
    transcript: readonly ModelMessage[],
    layout: TranscriptLayout,
    request: ContextRequest,
  ): Promise<Shaped> {
    const result = await summarizeContext({
      transcript,
      layout,
      limits: this.limits,
      meter: this.#meter,
      summarize: this.#summarize!,
      signal: request.signal,
      memo: this.#memos.get(request.sessionId, transcript),
    });
    this.#memos.set(request.sessionId, transcript, result.memo);
    return result;
  }
}

/** `messages` with `preamble` just before the newest user message (or first, without one). */
function withPreamble(messages: ModelMessage[], preamble: readonly ModelMessage[]): ModelMessage[] {
  if (preamble.length === 0) return messages;
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.role !== 'user') at--;
  messages.splice(Math.max(at, 0), 0, ...preamble);
  return messages;
}

interface Shaped {
  readonly messages: ModelMessage[];
  readonly sent: ContextMetrics;
  readonly removed: number;
  readonly summarized?: boolean;
}
