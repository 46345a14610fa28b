import { describe, expect, it } from 'vitest';
import { budgetLines } from './session-budget.js';

describe('a session cost and budget on the page', () => {
  it('shows the cost, and each limit with what was spent of it', () => {
    expect(
      budgetLines({
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 0.010065 },
        budget: {
          limits: { maxCostUsd: 0.01, maxToolCalls: 5, onBudgetExhausted: 'fail' },
          spent: { tokens: 15, costUsd: 0.010065, toolCalls: 4, durationMs: 812 },
          warned: ['maxCostUsd', 'maxToolCalls'],
          exhausted: 'maxCostUsd',
        },
      }),
    ).toEqual([
      'cost $0.010065',
      'budget maxCostUsd: $0.010065 of $0.01 (spent)',
      'budget maxToolCalls: 4 tool calls of 5 tool calls (80 %)',
    ]);
  });

  it('shows nothing for a session without a price or a budget', () => {
    expect(budgetLines({ usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } })).toEqual([]);
  });
});
