import type { Usage } from './v1/index.js';

/** Usage of nothing: the start value for sums. */
export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * Picodollars (1e-12 USD) in a dollar: costs are counted as whole picodollars, so sums of
 * costs are sums of integers and never drift (exact up to about $9,000).
 */
export const PICO_USD = 1e12;

/** A cost in dollars as whole picodollars. */
export function toPicoUsd(usd: number): number {
  return Math.round(usd * PICO_USD);
}

/** Whole picodollars as dollars. */
export function fromPicoUsd(pico: number): number {
  return pico / PICO_USD;
}

/**
 * Adds two usage records; optional counters stay absent unless one side has them. Costs are
 * added as whole picodollars, so `a + b + c` is the same whatever the order.
 */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  const sum: {
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    reasoningTokens?: number;
    cachedInputTokens?: number;
    cacheWriteInputTokens?: number;
    costUsd?: number;
  } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined)
    sum.reasoningTokens = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined)
    sum.cachedInputTokens = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  if (a.cacheWriteInputTokens !== undefined || b.cacheWriteInputTokens !== undefined)
    sum.cacheWriteInputTokens = (a.cacheWriteInputTokens ?? 0) + (b.cacheWriteInputTokens ?? 0);
  if (a.costUsd !== undefined || b.costUsd !== undefined)
    sum.costUsd = fromPicoUsd(toPicoUsd(a.costUsd ?? 0) + toPicoUsd(b.costUsd ?? 0));
  return sum;
}
