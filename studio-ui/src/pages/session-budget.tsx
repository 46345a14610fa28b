import type { SessionView } from '../../../src/studio/api-types.js';

type Spent = NonNullable<SessionView['budget']>['spent'];

/** A dollar amount as the page shows it: up to six decimals, no trailing zeros. */
function dollars(usd: number): string {
  return `$${Number(usd.toFixed(6))}`;
}

const SPENT: Readonly<Record<string, (b: Spent) => number>> = {
  maxTotalTokens: (s) => s.tokens,
  maxCostUsd: (s) => s.costUsd,
  maxDurationMs: (s) => s.durationMs,
  maxToolCalls: (s) => s.toolCalls,
};

const UNIT: Readonly<Record<string, (n: number) => string>> = {
  maxTotalTokens: (n) => `${n} tokens`,
  maxCostUsd: dollars,
  maxDurationMs: (n) => `${n} ms`,
  maxToolCalls: (n) => `${n} tool calls`,
};

/**
 * The lines of a session's cost and budget (pure): what its runs cost, when a price was
 * known, and for each limit of the latest run's budget what was spent of it.
 */
export function budgetLines(session: Pick<SessionView, 'usage' | 'budget'>): string[] {
  const lines: string[] = [];
  const cost = session.usage?.costUsd;
  if (typeof cost === 'number') lines.push(`cost ${dollars(cost)}`);
  const budget = session.budget;
  if (!budget) return lines;
  for (const [limit, spentOf] of Object.entries(SPENT)) {
    const max = (budget.limits as Readonly<Record<string, unknown>>)[limit];
    if (typeof max !== 'number') continue;
    const unit = UNIT[limit]!;
    const state =
      budget.exhausted === limit
        ? ' (spent)'
        : (budget.warned as readonly string[]).includes(limit)
          ? ' (80 %)'
          : '';
    lines.push(`budget ${limit}: ${unit(spentOf(budget.spent))} of ${unit(max)}${state}`);
  }
  return lines;
}

/** A session's cost and budget, one line each (nothing when neither is known). */
export function SessionBudget({ session }: { readonly session: SessionView }) {
  const lines = budgetLines(session);
  if (lines.length === 0) return null;
  return (
    <ul class="muted" data-testid="session-budget">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
