/** Token usage of one or more model turns. */
export interface Usage {
  /** Every input token of the turn, cached ones included. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly reasoningTokens?: number;
  /** Input tokens read from the provider's prompt cache (part of `inputTokens`). */
  readonly cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache this turn (part of `inputTokens`). */
  readonly cacheWriteInputTokens?: number;
}
