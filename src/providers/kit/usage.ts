import type { Usage } from '../../model/index.js';

/** Token counts as a provider reports them; the optional ones may be missing or null. */
export interface ReportedUsage {
  readonly input: number;
  readonly output: number;
  readonly total: number;
  readonly reasoning?: number | null | undefined;
  readonly cachedInput?: number | null | undefined;
  readonly cacheWrite?: number | null | undefined;
}

/** Neutral usage; optional counters stay absent when the provider did not report them. */
export function toUsage(reported: ReportedUsage): Usage {
  const out: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: reported.input,
    outputTokens: reported.output,
    totalTokens: reported.total,
  };
  if (typeof reported.reasoning === 'number') out.reasoningTokens = reported.reasoning;
  if (typeof reported.cachedInput === 'number') out.cachedInputTokens = reported.cachedInput;
  if (typeof reported.cacheWrite === 'number') out.cacheWriteInputTokens = reported.cacheWrite;
  return out;
}
