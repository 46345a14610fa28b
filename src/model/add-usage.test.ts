import { describe, expect, it } from 'vitest';
import { addUsage, ZERO_USAGE } from './add-usage.js';

describe('addUsage', () => {
  it('adds costs as whole picodollars: no floating-point drift, whatever the order', () => {
    const cost = (costUsd: number) => ({ ...ZERO_USAGE, costUsd });
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(addUsage(cost(0.1), cost(0.2)).costUsd).toBe(0.3);
    let sum = ZERO_USAGE;
    for (let i = 0; i < 1000; i++) sum = addUsage(sum, cost(0.000001));
    expect(sum.costUsd).toBe(0.001);
  });

  it('keeps costUsd absent when neither side has it', () => {
    const a = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
    expect(addUsage(a, a)).toEqual({ inputTokens: 2, outputTokens: 4, totalTokens: 6 });
    expect(addUsage(a, { ...a, costUsd: 0.5 }).costUsd).toBe(0.5);
  });
});
