import { describe, expect, it } from 'vitest';
import { budgetLimits, DEFAULT_LIMITS, hasBudget, resolveLimits } from './limits.js';

describe('budget limits', () => {
  it('have no default, and layer like the other limits', () => {
    expect(hasBudget(budgetLimits(DEFAULT_LIMITS))).toBe(false);
    const agent = resolveLimits(DEFAULT_LIMITS, { maxCostUsd: 0.25, maxTotalTokens: 10 }, 'limits');
    const run = resolveLimits(agent, { maxTotalTokens: 20, onBudgetExhausted: 'finish' }, 'run');
    expect(budgetLimits(run)).toEqual({
      maxTotalTokens: 20,
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
    ['maxTotalTokens', 0],
    ['maxTotalTokens', 1.5],
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

  it('refuses a maxCostUsd under one picodollar (it would round to none), saying the minimum', () => {
    for (const tiny of [4e-13, 5e-13, 9.99e-13, Number.MIN_VALUE]) {
      const resolve = () => resolveLimits(DEFAULT_LIMITS, { maxCostUsd: tiny }, 'run limits');
      expect(resolve).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
      expect(resolve).toThrow('at least 1e-12 (one picodollar)');
    }
    expect(resolveLimits(DEFAULT_LIMITS, { maxCostUsd: 1e-12 }, 'l').maxCostUsd).toBe(1e-12);
  });

  it("takes SPEC 15.4's maxTokens as maxTotalTokens, and refuses both when they differ", () => {
    const run = resolveLimits(DEFAULT_LIMITS, { maxTokens: 30 }, 'run limits');
    expect(run.maxTotalTokens).toBe(30);
    expect(run.maxTokens).toBeUndefined();
    expect(budgetLimits({ maxTokens: 40 })).toEqual({ maxTotalTokens: 40 });
    expect(
      resolveLimits(DEFAULT_LIMITS, { maxTokens: 5, maxTotalTokens: 5 }, 'l').maxTotalTokens,
    ).toBe(5);
    const both = () => resolveLimits(DEFAULT_LIMITS, { maxTokens: 5, maxTotalTokens: 6 }, 'l');
    expect(both).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(both).toThrow('give only maxTotalTokens');
    expect(() => resolveLimits(DEFAULT_LIMITS, { maxTokens: 1.5 }, 'l')).toThrow(
      'l.maxTokens must be',
    );
  });
});
