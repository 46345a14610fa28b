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
  /**
   * What the usage cost in US dollars, when a price is known for the model (the agent's
   * `pricing`); providers leave it out. A multiple of 1e-12 (sums are exact, see `addUsage`).
   */
  readonly costUsd?: number;
}
