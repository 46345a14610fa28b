import { MusterError } from '../errors/index.js';
import { MAX_DATA_DEPTH } from '../util/index.js';

/** Per-run limits. Exceeding one fails as documented on each field. */
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
}

/** The defaults of SPEC section 6. */
export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxIterations: 8,
  maxToolCallsPerTurn: 8,
  maxToolArgumentBytes: 262_144,
  maxToolArgumentDepth: 64,
  maxToolResultBytes: 2_097_152,
});

const KEYS = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];

/** The largest value of the limits that have one. */
const MAXIMA: Partial<Record<keyof Limits, number>> = { maxToolArgumentDepth: MAX_DATA_DEPTH };

/**
 * Layers overrides over a base, checking each is a positive integer, and at most its maximum
 * where it has one (`INVALID_CONFIGURATION`).
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
  const out: Record<string, number> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (!KEYS.includes(key as keyof Limits)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `${where}.${key} is not a limit; known limits: ${KEYS.join(', ')}.`,
      );
    }
    if (value === undefined) continue;
    const max = MAXIMA[key as keyof Limits];
    if (
      typeof value !== 'number' ||
      !Number.isSafeInteger(value) ||
      value < 1 ||
      (max !== undefined && value > max)
    ) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `${where}.${key} must be a positive integer${max !== undefined ? ` of at most ${max}` : ''}, got ${JSON.stringify(value)}.`,
      );
    }
    out[key] = value;
  }
  return Object.freeze(out) as unknown as Limits;
}
