import type { ReasoningEffort } from '../../model/index.js';

/**
 * Thinking token budgets per reasoning effort, for APIs that take a budget instead of an
 * effort (Anthropic extended thinking). `none` turns thinking off and has no budget.
 */
export const THINKING_BUDGET: Readonly<Record<Exclude<ReasoningEffort, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32000,
};
