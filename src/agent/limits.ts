import { MusterError } from '../errors/index.js';
import { MAX_DATA_DEPTH } from '../util/index.js';

/** What a run does once its budget is spent (SPEC 15.4). */
export type BudgetExhaustedPolicy = 'fail' | 'finish';

/**
 * Per-run limits. Exceeding one fails as documented on each field. The budget limits
 * (`maxTotalTokens`, `maxCostUsd`, `maxDurationMs`, `maxToolCalls`) have no default: a run without
 * them has no budget. They count the run, the runs it delegates to (`asTool`, children) and
 * the sampling its servers ask of the agent's model (see docs/guide/budgets.md).
 */
export interface Limits {
  /** Model turns per run; reaching it fails the run with `AGENT_LIMIT_EXCEEDED`. */
  readonly maxIterations: number;
  /** Tool calls in one model turn; more fails the run with `AGENT_LIMIT_EXCEEDED`. */
  readonly maxToolCallsPerTurn: number;
  /** UTF-8 bytes of one call's arguments; more is a `TOOL_ARGUMENTS_INVALID` result. */
  readonly maxToolArgumentBytes: number;
  /**
   * Levels of nesting one call's arguments may have (objects and arrays, the arguments object
   * itself being level 1), at most 256 (`MAX_DATA_DEPTH`); deeper is a `TOOL_ARGUMENTS_INVALID`
   * result. Arguments nesting deeper than 256 stay in the transcript as the text the model sent.
   */
  readonly maxToolArgumentDepth: number;
  /** UTF-8 bytes of one tool result; more is a `TOOL_RESULT_TOO_LARGE` result. */
  readonly maxToolResultBytes: number;
  /**
   * Budget: tokens (`usage.totalTokens`, input and output) the run may spend, with its
   * delegated runs and sampling. Not `context.maxTokens`, which bounds one request.
   */
  readonly maxTotalTokens?: number;
  /**
   * SPEC 15.4's name for {@link Limits.maxTotalTokens}, accepted as input and resolved into it
   * (both given with different values: `INVALID_CONFIGURATION`). Never set on resolved limits.
   */
  readonly maxTokens?: number;
  /**
   * Budget: US dollars the run may spend, with its delegated runs and sampling: a finite
   * number of at least 1e-12 (one picodollar, the unit dollars are counted in), priced by the
   * agent's `pricing` (a model without a price is refused).
   */
  readonly maxCostUsd?: number;
  /**
   * Budget: milliseconds the run may be active, from when it starts; time parked on a wait does
   * not count. Reaching it stops the model request and the calls in flight.
   */
  readonly maxDurationMs?: number;
  /** Budget: tool calls the run may start, its delegated runs' included (all turns together). */
  readonly maxToolCalls?: number;
  /**
   * What a run whose budget is spent does: `'fail'` (default) ends it with
   * `BUDGET_EXHAUSTED`; `'finish'` gives the model one last turn without tools to answer.
   */
  readonly onBudgetExhausted?: BudgetExhaustedPolicy;
}

/** The budget limits of a run (SPEC 15.4), as {@link Limits} names them. */
export type BudgetLimits = Pick<
  Limits,
  'maxTotalTokens' | 'maxCostUsd' | 'maxDurationMs' | 'maxToolCalls' | 'onBudgetExhausted'
>;

/** The defaults of SPEC section 6 (no budget: budget limits have no default). */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxIterations: 8,
  maxToolCallsPerTurn: 8,
  maxToolArgumentBytes: 262_144,
  maxToolArgumentDepth: 64,
  maxToolResultBytes: 2_097_152,
});

/** The names of the budget limits, in the order the docs give them. */
export const BUDGET_LIMIT_KEYS = [
  'maxTotalTokens',
  'maxCostUsd',
  'maxDurationMs',
  'maxToolCalls',
  'onBudgetExhausted',
] as const satisfies readonly (keyof BudgetLimits)[];

const KEYS: readonly (keyof Limits)[] = [
  ...(Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]),
  ...BUDGET_LIMIT_KEYS,
];

/** The smallest `maxCostUsd`: one picodollar, the unit dollars are counted in. */
const MIN_COST_USD = 1e-12;

/** The largest value of the limits that have one. */
const MAXIMA: Partial<Record<keyof Limits, number>> = { maxToolArgumentDepth: MAX_DATA_DEPTH };

/**
 * Layers overrides over a base, checking each (`INVALID_CONFIGURATION`): `maxCostUsd` a
 * finite number of at least one picodollar, `onBudgetExhausted` `'fail'` or `'finish'`, every other limit a
 * positive integer, at most its maximum where it has one.
 */
export function resolveLimits(
  base: Limits,
  override: Partial<Limits> | undefined,
  where: string,
): Limits {
  if (override === undefined) return base;
  if (typeof override !== 'object' || override === null) {
    throw new MusterError('INVALID_CONFIGURATION', `${where} must be an object of limits.`);
  }
  const out: Record<string, unknown> = { ...base };
  for (const [given, value] of Object.entries(override)) {
    const key = given === 'maxTokens' ? 'maxTotalTokens' : given;
    if (given === 'maxTokens' && value !== undefined) {
      const other = (override as Record<string, unknown>)['maxTotalTokens'];
      if (other !== undefined && other !== value)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `${where}.maxTokens and ${where}.maxTotalTokens name the same budget and differ (${describe(value)} and ${describe(other)}): give only maxTotalTokens.`,
          { details: { option: `${where}.maxTokens` } },
        );
    }
    if (!KEYS.includes(key as keyof Limits)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `${where}.${key} is not a limit; known limits: ${KEYS.join(', ')}.`,
      );
    }
    if (value === undefined) continue;
    const problem = limitProblem(key as keyof Limits, value);
    if (problem !== undefined)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `${where}.${given} must be ${problem}, got ${describe(value)}.`,
        { details: { option: `${where}.${given}` } },
      );
    out[key] = value;
  }
  return Object.freeze(out) as unknown as Limits;
}

/** What is wrong with `value` as limit `key`, or undefined when it is fine. */
function limitProblem(key: keyof Limits, value: unknown): string | undefined {
  if (key === 'onBudgetExhausted')
    return value === 'fail' || value === 'finish' ? undefined : "'fail' or 'finish'";
  // dollars are counted in whole picodollars: less than one would be a budget of none
  if (key === 'maxCostUsd')
    return typeof value === 'number' && Number.isFinite(value) && value >= MIN_COST_USD
      ? undefined
      : `a positive finite number of US dollars (for example 0.5), at least ${MIN_COST_USD} (one picodollar)`;
  const max = MAXIMA[key];
  return typeof value === 'number' &&
    Number.isSafeInteger(value) &&
    value >= 1 &&
    (max === undefined || value <= max)
    ? undefined
    : `a positive integer${max !== undefined ? ` of at most ${max}` : ''}`;
}

/** A value as a message quotes it (`JSON.stringify` turns NaN and Infinity into null). */
function describe(value: unknown): string {
  return typeof value === 'number' && !Number.isFinite(value)
    ? String(value)
    : (JSON.stringify(value) ?? String(value));
}

/** The budget limits among `limits`, only those set. */
export function budgetLimits(limits: Partial<Limits> | undefined): BudgetLimits {
  const out: { -readonly [K in keyof BudgetLimits]?: BudgetLimits[K] } = {};
  if (!limits) return out;
  for (const key of BUDGET_LIMIT_KEYS)
    if (limits[key] !== undefined) (out as Record<string, unknown>)[key] = limits[key];
  // SPEC 15.4's name for the token budget, in limits not resolved yet
  if (out.maxTotalTokens === undefined && limits.maxTokens !== undefined)
    out.maxTotalTokens = limits.maxTokens;
  return out;
}

/** True when `limits` set any budget (the policy alone is no budget). */
export function hasBudget(limits: BudgetLimits): boolean {
  return (
    limits.maxTotalTokens !== undefined ||
    limits.maxCostUsd !== undefined ||
    limits.maxDurationMs !== undefined ||
    limits.maxToolCalls !== undefined
  );
}
