import { describe, expect, it } from 'vitest';
import { assertCostPriceable, pricedUsage, pricer, validatePricing } from './pricing.js';

describe('pricing', () => {
  const price = { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15 };

  it('prices cached input at its own price, the rest of the input and the output at theirs', () => {
    const usage = {
      inputTokens: 1000,
      cachedInputTokens: 600,
      outputTokens: 100,
      totalTokens: 1100,
    };
    // 400 * $3 + 600 * $0.30 + 100 * $15 per million tokens
    expect(pricedUsage(price, usage)).toEqual({ ...usage, costUsd: 0.00288 });
    const { cachedInputPerMTok: _cached, ...plain } = price;
    expect(pricedUsage(plain, usage).costUsd).toBe(0.0045);
  });

  it('prices only the models it names (an inherited key names none)', () => {
    expect(pricer({ m: price }, 'm')).toBeTypeOf('function');
    expect(pricer({ m: price }, 'other')).toBeUndefined();
    expect(pricer({ m: price }, 'constructor')).toBeUndefined();
    expect(pricer(undefined, 'm')).toBeUndefined();
  });

  it.each([
    [{ m: { inputPerMTok: -1, outputPerMTok: 1 } }, /inputPerMTok/],
    [{ m: { inputPerMTok: 1, outputPerMTok: Number.NaN } }, /outputPerMTok/],
    [{ m: { inputPerMTok: 1, outputPerMTok: 1, cachedInputPerMTok: Infinity } }, /cached/],
    [{ m: { inputPerMTok: 1 } }, /outputPerMTok/],
    [{ m: { inputPerMTok: 1, outputPerMTok: 1, perCall: 2 } }, /perCall/],
    [[], /must be an object/],
  ])('refuses a bad price %j with INVALID_CONFIGURATION', (pricing, message) => {
    expect(() => validatePricing(pricing)).toThrow(message);
    expect(() => validatePricing(pricing)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIGURATION' }),
    );
  });

  it('refuses maxCostUsd without any pricing', () => {
    expect(() => assertCostPriceable({ maxCostUsd: 1 }, undefined, 'limits')).toThrow(
      /limits.maxCostUsd .* no pricing/,
    );
    expect(() => assertCostPriceable({ maxCostUsd: 1 }, {}, 'limits')).not.toThrow();
    expect(() => assertCostPriceable({}, undefined, 'limits')).not.toThrow();
  });
});
