/** Median and spread of a set of timing samples, all in the samples' own unit. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p10: number;
  readonly p90: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
}

/**
 * The `p`-th percentile (0..100) of samples already sorted ascending, interpolating linearly
 * between the two nearest ranks.
 */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (rank - lo);
}

/** Summarizes samples as median, p10, p90, p99, min and max. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p10: percentile(sorted, 10),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Multiplies every figure of a summary by `factor` (for unit changes). */
export function scaleSummary(s: Summary, factor: number): Summary {
  return {
    n: s.n,
    median: s.median * factor,
    p10: s.p10 * factor,
    p90: s.p90 * factor,
    p99: s.p99 * factor,
    min: s.min * factor,
    max: s.max * factor,
  };
}

/** Nanoseconds elapsed since `start` (a `process.hrtime.bigint()` reading), as a number. */
export function elapsedNs(start: bigint): number {
  return Number(process.hrtime.bigint() - start);
}

/** One printed row: a label, a unit and its summary. */
export interface Row {
  readonly label: string;
  readonly unit: string;
  readonly summary: Summary;
}

/** Renders rows as a fixed-width table of median, p10, p90, p99 and sample count. */
export function formatTable(title: string, rows: readonly Row[], digits = 3): string {
  const width = Math.max(title.length, ...rows.map((r) => r.label.length)) + 2;
  const num = (v: number) => v.toFixed(digits).padStart(11);
  const header = `${title.padEnd(width)}${'median'.padStart(11)}${'p10'.padStart(11)}${'p90'.padStart(11)}${'p99'.padStart(11)}${'n'.padStart(7)}  unit`;
  const lines = rows.map(
    (r) =>
      `${r.label.padEnd(width)}${num(r.summary.median)}${num(r.summary.p10)}${num(r.summary.p90)}${num(r.summary.p99)}${String(r.summary.n).padStart(7)}  ${r.unit}`,
  );
  return [header, '-'.repeat(header.length), ...lines].join('\n');
}
