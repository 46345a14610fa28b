import { describe, expect, it } from 'vitest';
import { budgetLimits, DEFAULT_LIMITS, hasBudget, resolveLimits } from './limits.js';

describe('budget limits', () => {
  it('have no default, and layer like the other limits', () => {
    expect(hasBudget(budgetLimits(DEFAULT_LIMITS))).toBe(false);
    const agent = resolveLimits(DEFAULT_LIMITS, { maxCostUsd: 0.25, maxTokens: 10 }, 'limits');
    const run = resolveLimits(agent, { maxTokens: 20, onBudgetExhausted: 'finish' }, 'run');
    expect(budgetLimits(run)).toEqual({
      maxTokens: 20,
      maxCostUsd: 0.25,
      onBudgetExhausted: 'finish',
    });
    expect(hasBudget({ onBudgetExhausted: 'finish' })).toBe(false);
  });

  it.each([
    ['maxCostUsd', -1],
    ['maxCostUsd', 0],
    ['maxCostUsd', Number.NaN],
    ['maxCostUsd', Number.POSITIVE_INFINITY],
    ['maxCostUsd', '0.5'],
    ['maxTokens', 0],
    ['maxTokens', 1.5],
    ['maxToolCalls', 2.5],
    ['maxDurationMs', -10],
    ['onBudgetExhausted', 'stop'],
  ])('refuses %s = %s with INVALID_CONFIGURATION naming it', (key, value) => {
    const resolve = () => resolveLimits(DEFAULT_LIMITS, { [key]: value }, 'run limits');
    expect(resolve).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(resolve).toThrow(`run limits.${key} must be`);
  });

  it('takes a decimal for maxCostUsd, and says what a NaN or infinite one was', () => {
    expect(resolveLimits(DEFAULT_LIMITS, { maxCostUsd: 0.0001 }, 'l').maxCostUsd).toBe(0.0001);
    expect(() => resolveLimits(DEFAULT_LIMITS, { maxCostUsd: Number.NaN }, 'l')).toThrow(/got NaN/);
    expect(() => resolveLimits(DEFAULT_LIMITS, { maxCostUsd: -Infinity }, 'l')).toThrow(
      /got -Infinity/,
    );
  });
});
