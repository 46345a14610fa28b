/** The budget limits a run started with (SPEC 15.4), as a session stores them. */
export interface SessionBudgetLimits {
  readonly maxTotalTokens?: number;
  readonly maxCostUsd?: number;
  readonly maxDurationMs?: number;
  readonly maxToolCalls?: number;
  readonly onBudgetExhausted?: 'fail' | 'finish';
}

/** The name of one budget limit. */
export type BudgetLimitName = 'maxTotalTokens' | 'maxCostUsd' | 'maxDurationMs' | 'maxToolCalls';

/** What a run spent against its budget, its delegated runs and sampling included. */
export interface BudgetSpent {
  /** Tokens (`usage.totalTokens`). */
  readonly tokens: number;
  /** US dollars, a multiple of 1e-12 (counted as whole picodollars: sums are exact). */
  readonly costUsd: number;
  /** Tool calls started. */
  readonly toolCalls: number;
  /** Milliseconds the run was active (time parked on a wait excluded). */
  readonly durationMs: number;
}

/**
 * The budget of a session's latest run (SPEC 15.4): its limits and what it spent so far,
 * stored with every step commit of the run, so a run that parks, or whose process dies, goes
 * on counting where it stopped when it is resumed, in any process.
 */
export interface SessionBudget {
  /** The budget limits the run started with; a resume keeps them (unless it gives its own). */
  readonly limits: SessionBudgetLimits;
  readonly spent: BudgetSpent;
  /** The limits a `budget.warning` was reported for (each once per run). */
  readonly warned: readonly BudgetLimitName[];
  /** The limit that ran out, once one did. */
  readonly exhausted?: BudgetLimitName;
}
