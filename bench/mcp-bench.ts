import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settledChildren } from './child-processes.js';
import { measureMcpCalls } from './mcp-calls.js';
import type {
  CallComparison,
  McpCallsOptions,
  McpCallsResult,
  VariantResult,
} from './mcp-calls.js';
import { measureStartup } from './mcp-startup.js';
import type { StartupOptions, StartupResult } from './mcp-startup.js';
import { formatTable, scaleSummary } from './stats.js';
import type { Row } from './stats.js';

/** SPEC section 13 targets, as ratios to the raw official client. */
export const MCP_TARGETS = Object.freeze({
  perCall: 1.05,
  /** In-process `sdk` tools must be faster than a raw in-memory round trip. */
  sdk: 1.0,
  /** Ten stdio servers ready no slower than raw clients in parallel. */
  startup: 1.0,
  bigResult: 1.1,
});

/** What {@link measureMcp} takes. */
export interface McpBenchOptions extends McpCallsOptions {
  readonly startup: StartupOptions;
}

/** Everything the MCP benchmark measured. */
export interface McpBenchResult {
  readonly calls: McpCallsResult;
  readonly startup: StartupResult;
  /** Child processes still alive after everything was closed (`undefined`: cannot tell). */
  readonly leftoverChildren: readonly number[] | undefined;
  readonly seconds: number;
}

/**
 * Runs the MCP benchmark against the raw official client: per-call cost over stdio, HTTP and
 * in process, a 1 MiB result, and ten stdio servers ready. `MUSTER_HOME` points at a fresh
 * temporary folder meanwhile (restored after), so nothing cached in the user's home is used.
 */
export async function measureMcp(options: McpBenchOptions): Promise<McpBenchResult> {
  const started = performance.now();
  const previousHome = process.env.MUSTER_HOME;
  const home = mkdtempSync(join(tmpdir(), 'muster-bench-home-'));
  process.env.MUSTER_HOME = home;
  let calls: McpCallsResult;
  let startup: StartupResult;
  try {
    calls = await measureMcpCalls(options);
    startup = await measureStartup(options.startup);
  } finally {
    if (previousHome === undefined) delete process.env.MUSTER_HOME;
    else process.env.MUSTER_HOME = previousHome;
    rmSync(home, { recursive: true, force: true });
  }
  const leftoverChildren = await settledChildren();
  return { calls, startup, leftoverChildren, seconds: (performance.now() - started) / 1000 };
}

const x = (ratio: number) => `${ratio.toFixed(2)}x`;

function variantName(v: VariantResult, batch: number): string {
  return v.variant === 'sequential' ? 'sequential' : `${batch} concurrent`;
}

function callRows(c: CallComparison, scale: number): Row[] {
  const us = (s: VariantResult['rawUs']) => (scale === 1 ? s : scaleSummary(s, scale));
  const unit = scale === 1 ? 'µs/call' : 'ms/call';
  return c.variants.flatMap((v): Row[] => {
    const how = c.batch === 1 ? '' : `, ${variantName(v, c.batch)}`;
    const muster =
      v.variant === 'sequential'
        ? 'sum of tool.completed.durationMs'
        : 'longest durationMs of turn';
    return [
      { label: `raw client${how}`, unit, summary: us(v.rawUs) },
      ...v.referenceUs.map(
        (r): Row => ({ label: `  ref: ${r.label} (${r.era})${how}`, unit, summary: us(r.us) }),
      ),
      { label: `muster, pipeline + call${how} (${muster})`, unit, summary: us(v.musterUs) },
      {
        label: `muster, MCP part${how} (run - no-op host tool run)`,
        unit,
        summary: us(v.mcpPartUs),
      },
      { label: `  no-op host tool, same pipeline${how}`, unit, summary: us(v.hostUs) },
    ];
  });
}

function ratioLine(c: CallComparison, target: number, targetText: string): string {
  const parts = c.variants.map(
    (v) =>
      `${variantName(v, c.batch)} ${x(v.ratio)} (MCP part ${x(v.mcpPartRatio)}; run ${v.runMs.median.toFixed(2)} ms)`,
  );
  const worst = Math.max(...c.variants.map((v) => v.ratio));
  return `   Muster / raw: ${parts.join(', ')}; target ${targetText} ${x(target)}: ${worst <= target ? 'met' : 'not met'}; era raw ${c.rawEra}, Muster ${c.musterEra}; ${c.epochs} epoch(s), ${c.seconds.toFixed(1)} s`;
}

/** The MCP tables and notes, ready to print (sections 5 to 9). */
export function formatMcpReport(r: McpBenchResult): string {
  const { stdio, http, sdk, big } = r.calls;
  const s = r.startup;
  const sections = [
    formatTable('5. MCP echo over stdio (µs per call)', callRows(stdio, 1), 1),
    ratioLine(stdio, MCP_TARGETS.perCall, '<='),
    '',
    formatTable('6. MCP echo over Streamable HTTP (µs per call)', callRows(http, 1), 1),
    ratioLine(http, MCP_TARGETS.perCall, '<='),
    '',
    formatTable(
      '7. in-process sdk tool vs raw in-memory McpServer (µs per call)',
      callRows(sdk, 1),
      1,
    ),
    ratioLine(sdk, MCP_TARGETS.sdk, '<'),
    '',
    formatTable(
      `8. ${s.servers} stdio servers ready (ms)`,
      [
        {
          label: `raw clients in parallel, legacy (connect + tools/list)`,
          unit: 'ms',
          summary: s.rawMs,
        },
        {
          label: `muster initialize(), first agent, fresh MUSTER_HOME`,
          unit: 'ms',
          summary: s.musterFirstMs,
        },
        { label: `muster initialize(), second agent`, unit: 'ms', summary: s.musterSecondMs },
      ],
      1,
    ),
    `   Muster / raw: first ${x(s.firstRatio)}, second ${x(s.secondRatio)}; target <= ${x(MCP_TARGETS.startup)}: ${Math.max(s.firstRatio, s.secondRatio) <= MCP_TARGETS.startup ? 'met' : 'not met'}; Muster era ${s.musterEra}, startup concurrency ${s.startupConcurrency}; ${s.seconds.toFixed(1)} s`,
    '',
    formatTable(
      '9. a 1 MiB result over stdio, archived by Muster (ms per call)',
      callRows(big, 1e-3),
      2,
    ),
    ratioLine(big, MCP_TARGETS.bigResult, '<='),
    '',
    `   MCP bench: ${r.seconds.toFixed(1)} s; ${r.leftoverChildren === undefined ? 'child processes not checked (no /proc)' : `${r.leftoverChildren.length} child process(es) left after closing everything${r.leftoverChildren.length > 0 ? `: ${r.leftoverChildren.join(', ')}` : ''}`}; a concurrent turn puts 2 abort listeners per MCP call on the run signal, so the bench raises Node's listener warning limit while it runs`,
  ];
  return sections.join('\n');
}

/** The MCP figures for the final `bench:` summary line. */
export function mcpSummary(r: McpBenchResult): string {
  const { stdio, http, sdk, big } = r.calls;
  const pair = (c: CallComparison) => c.variants.map((v) => x(v.ratio)).join('/');
  return [
    `MCP call stdio ${pair(stdio)} seq/x${stdio.batch} (target <= ${MCP_TARGETS.perCall})`,
    `HTTP ${pair(http)}`,
    `sdk ${pair(sdk)} (target < ${MCP_TARGETS.sdk})`,
    `${r.startup.servers} servers ready ${x(r.startup.firstRatio)} (target <= ${MCP_TARGETS.startup})`,
    `1 MiB result ${x(big.variants[0]!.ratio)} (target <= ${MCP_TARGETS.bigResult})`,
  ].join(', ');
}
