import { MusterError } from '../errors/index.js';
import { fromPicoUsd, PICO_USD } from '../model/index.js';
import type { Usage } from '../model/index.js';
import { isObject, shape } from '../util/index.js';
import type { Check } from '../util/index.js';

/** What one model costs, in US dollars per million tokens (SPEC 15.4). */
export interface ModelPrice {
  /** Input tokens not read from the prompt cache (cache writes included). */
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** Input tokens read from the prompt cache; `inputPerMTok` when absent. */
  readonly cachedInputPerMTok?: number;
}

/**
 * The agent option `pricing`: a price per model name (the name a run's requests carry). With
 * it every model turn's `usage.costUsd` is known, and a run may have `limits.maxCostUsd`.
 * Prices count to a millionth of a dollar per million tokens (one picodollar a token).
 */
export type Pricing = Readonly<Record<string, ModelPrice>>;

/** Dollars per million tokens as whole picodollars per token. */
const PICO_PER_TOKEN_PER_USD_PER_MTOK = PICO_USD / 1_000_000;

const price: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0
    ? undefined
    : 'must be a finite number of dollars per million tokens, 0 or more';

const modelPrice = shape({
  inputPerMTok: price,
  outputPerMTok: price,
  cachedInputPerMTok: (v) => (v === undefined ? undefined : price(v)),
} satisfies Record<keyof ModelPrice, Check>);

/** Checks the `pricing` option: an object of model names to prices (`INVALID_CONFIGURATION`). */
export function validatePricing(pricing: unknown): void {
  const problem = isObject(pricing);
  if (problem) throw invalid(`pricing ${problem}`);
  for (const [model, value] of Object.entries(pricing as object)) {
    const wrong = modelPrice(value);
    if (wrong) throw invalid(`pricing['${model}'] ${wrong}`);
  }
}

function invalid(problem: string): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `Invalid agent options: ${problem}. Give createAgent({ pricing: { [modelName]: { inputPerMTok, outputPerMTok, cachedInputPerMTok? } } }) in US dollars per million tokens.`,
    { details: { option: 'pricing' } },
  );
}

/**
 * `limits.maxCostUsd` needs prices: an agent (or child) with it and no `pricing` at all is
 * refused at construction (`INVALID_CONFIGURATION`); a model missing from `pricing` is refused
 * when a run starts, since a run may name its own model.
 */
export function assertCostPriceable(
  limits: { readonly maxCostUsd?: number | undefined },
  pricing: Pricing | undefined,
  where: string,
): void {
  if (limits.maxCostUsd === undefined || pricing !== undefined) return;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `${where}.maxCostUsd is set, but the agent has no pricing to count dollars with: add createAgent({ pricing: { [modelName]: { inputPerMTok, outputPerMTok } } }) (US dollars per million tokens), or drop maxCostUsd.`,
    { details: { option: `${where}.maxCostUsd` } },
  );
}

/** The price of `modelName`, when `pricing` has one. */
export function priceOf(pricing: Pricing | undefined, modelName: string): ModelPrice | undefined {
  return pricing !== undefined && Object.hasOwn(pricing, modelName)
    ? pricing[modelName]
    : undefined;
}

/**
 * `usage` with its `costUsd` at `modelPrice`: cached input at the cached price, the rest of
 * the input at the input price, output at the output price, counted in whole picodollars.
 */
export function pricedUsage(modelPrice: ModelPrice, usage: Usage): Usage {
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const pico =
    (usage.inputTokens - cached) * perToken(modelPrice.inputPerMTok) +
    cached * perToken(modelPrice.cachedInputPerMTok ?? modelPrice.inputPerMTok) +
    usage.outputTokens * perToken(modelPrice.outputPerMTok);
  return { ...usage, costUsd: fromPicoUsd(pico) };
}

function perToken(perMTok: number): number {
  return Math.round(perMTok * PICO_PER_TOKEN_PER_USD_PER_MTOK);
}

/** Prices the usage of `modelName`'s turns, or undefined when it has no price. */
export function pricer(
  pricing: Pricing | undefined,
  modelName: string,
): ((usage: Usage) => Usage) | undefined {
  const found = priceOf(pricing, modelName);
  return found && ((usage) => pricedUsage(found, usage));
}
