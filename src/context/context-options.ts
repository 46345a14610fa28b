import type { ModelMessage } from '../model/index.js';
import type { ArchiveStore } from './archive-store.js';
import type { ContextTokenizer } from './context-measure.js';

/**
 * How a request that is over a context limit is shaped: `truncate` leaves out the oldest
 * turns; `summarize` replaces them with one summary from the host's `summarize` function.
 */
export type ContextStrategy = 'truncate' | 'summarize';

/**
 * Writes a summary of `messages` (the oldest part of a conversation, possibly led by the
 * previous summary as a system message). Called only when a request is over a limit; its
 * text replaces those messages in what is sent to the model. Honour `signal`.
 */
export type ContextSummarizer = (
  messages: readonly ModelMessage[],
  options: { readonly signal: AbortSignal },
) => Promise<string>;

/**
 * The agent's `context` options (SPEC section 9): the limits every model request is shaped
 * to, and where the archive of large tool results lives (a bounded {@link MemoryArchiveStore}
 * by default, so a durable store can keep it beside the sessions).
 */
export interface ContextOptions {
  /** Where archived tool results live; default a new `MemoryArchiveStore`. */
  readonly archiveStore?: ArchiveStore;
  /**
   * Bytes of archived results kept per session by the default store (default 64 MiB); the
   * oldest are dropped first. Ignored when `archiveStore` is given (bound that store instead).
   */
  readonly maxArchiveBytesPerSession?: number;
  /**
   * The most tokens the system prompt and messages of one request may hold (default 32000),
   * estimated at ~4 bytes per token unless `tokenizer` is given. Tool definitions are not
   * counted (large catalogs are handled by tool search).
   */
  readonly maxTokens?: number;
  /** The most messages one request may carry (default 100). */
  readonly maxMessages?: number;
  /** The most bytes the system prompt and messages of one request may hold (default: no limit). */
  readonly maxBytes?: number;
  /** Default `'summarize'` when `summarize` is given, `'truncate'` otherwise. */
  readonly strategy?: ContextStrategy;
  /** Counts tokens exactly instead of the byte estimate. */
  readonly tokenizer?: ContextTokenizer;
  /** The host's summarizer, required by (and only used with) strategy `'summarize'`. */
  readonly summarize?: ContextSummarizer;
}
