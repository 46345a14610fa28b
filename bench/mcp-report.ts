import type { McpBenchResult } from './mcp-bench.js';
import type { CallComparison, VariantResult } from './mcp-compare.js';
import type { ReadyResult } from './mcp-startup.js';
import { formatTable, scaleSummary } from './stats.js';
import type { Row, Summary } from './stats.js';

/**
 * The targets of issue 13 and SPEC section 13, against the raw official client in its default
 * (legacy) mode, judged on medians of the sequential variant (one call at a time).
 */
export const MCP_TARGETS = Object.freeze({
  /** `agent.mcp.callTool` over stdio and HTTP, p50: at most this ratio to the raw client. */
  direct: 1.05,
  /** A full agent tool turn over stdio and HTTP, p50: at most the raw call plus this (µs). */
  agentPlusUs: 100,
  /** In process: faster than a raw in-memory round trip (direct and agent turn). */
  sdk: 1.0,
  /** Ten stdio servers ready on first contact (`auto`) against raw legacy in parallel. */
  firstContact: 1.1,
  /** The same with verdicts cached. */
  cached: 1.0,
  /** A 500-tool catalog ready against raw connect + `listTools`. */
  catalog: 1.0,
  /** A 1 MiB result, archived, through an agent turn. */
  bigResult: 1.1,
});

/** One judged target, for the closing summary. */
export interface TargetLine {
  readonly name: string;
  readonly met: boolean;
  readonly text: string;
}

const x = (ratio: number) => `${ratio.toFixed(2)}x`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
const signed = (us: number) => `${us >= 0 ? '+' : ''}${us.toFixed(1)} µs`;

function variantName(v: VariantResult, batch: number): string {
  return v.variant === 'sequential' ? 'sequential' : `${batch} concurrent`;
}

function callRows(c: CallComparison, factor: number): Row[] {
  const us = (s: Summary) => (factor === 1 ? s : scaleSummary(s, factor));
  const unit = factor === 1 ? 'µs/call' : 'ms/call';
  return c.variants.flatMap((v): Row[] => {
    const how = c.batch === 1 ? '' : `, ${variantName(v, c.batch)}`;
    const turn = v.variant === 'sequential' ? 'durationMs' : 'longest durationMs of turn';
    return [
      ...v.baselines.map(
        (b): Row => ({ label: `${b.label} (${b.era})${how}`, unit, summary: us(b.us) }),
      ),
      { label: `muster agent.mcp.callTool (${c.musterEra})${how}`, unit, summary: us(v.directUs) },
      { label: `muster agent tool turn (${turn})${how}`, unit, summary: us(v.agentUs) },
      {
        label: `  MCP part of the run (run - no-op host run)${how}`,
        unit,
        summary: us(v.mcpPartUs),
      },
      { label: `  no-op host tool, same pipeline${how}`, unit, summary: us(v.hostUs) },
    ];
  });
}

interface Ratios {
  readonly p50: number;
  readonly p99: number;
  readonly autoP50: number | undefined;
  readonly peer: { readonly label: string; readonly p50: number } | undefined;
}

function ratios(v: VariantResult, s: Summary): Ratios {
  const raw = v.baselines.find((b) => b.role === 'raw')!;
  const auto = v.baselines.find((b) => b.role === 'raw-auto');
  const best = v.baselines
    .filter((b) => b.role === 'peer')
    .sort((a, b) => a.us.median - b.us.median)[0];
  return {
    p50: s.median / raw.us.median,
    p99: s.p99 / raw.us.p99,
    autoP50: auto ? s.median / auto.us.median : undefined,
    peer: best
      ? { label: best.label.replace(/^peer: /, ''), p50: s.median / best.us.median }
      : undefined,
  };
}

function ratioText(r: Ratios): string {
  const auto = r.autoP50 === undefined ? '' : `, ${x(r.autoP50)} raw auto`;
  const peer = r.peer === undefined ? '' : `, ${x(r.peer.p50)} best peer (${r.peer.label})`;
  return `p50 ${x(r.p50)} raw legacy${auto}${peer}; p99 ${x(r.p99)} raw legacy`;
}

/** What one call comparison is judged on: `plus` (raw + µs) or a ratio, per Muster figure. */
interface CallTargets {
  readonly direct?: number;
  readonly agent?: { readonly ratio: number } | { readonly plusUs: number };
  /** Strictly under the ratio instead of at most. */
  readonly strict?: boolean;
}

function judge(c: CallComparison, t: CallTargets, name: string, out: TargetLine[]): string[] {
  const lines: string[] = [];
  for (const v of c.variants) {
    const raw = v.baselines.find((b) => b.role === 'raw')!.us;
    const direct = ratios(v, v.directUs);
    const agent = ratios(v, v.agentUs);
    const plus = v.agentUs.median - raw.median;
    lines.push(
      `   ${variantName(v, c.batch)}: direct ${ratioText(direct)}`,
      `   ${' '.repeat(variantName(v, c.batch).length)}  agent turn ${ratioText(agent)}; ${signed(plus)} over raw p50`,
    );
    if (v.variant !== 'sequential') continue;
    const within = (ratio: number, target: number) => (t.strict ? ratio < target : ratio <= target);
    if (t.direct !== undefined) {
      const met = within(direct.p50, t.direct);
      const text = `${name}, agent.mcp.callTool p50: ${x(direct.p50)} (target ${t.strict ? '<' : '<='} ${x(t.direct)}): ${verdict(met)}`;
      out.push({ name: `${name} direct`, met, text });
      lines.push(`   target ${text}`);
    }
    if (t.agent !== undefined) {
      const met = 'plusUs' in t.agent ? plus <= t.agent.plusUs : within(agent.p50, t.agent.ratio);
      const goal =
        'plusUs' in t.agent
          ? `raw + ${t.agent.plusUs} µs, is ${signed(plus)}`
          : `${t.strict ? '<' : '<='} ${x(t.agent.ratio)}`;
      const text = `${name}, agent tool turn p50: ${x(agent.p50)} (target ${goal}): ${verdict(met)}`;
      out.push({ name: `${name} agent turn`, met, text });
      lines.push(`   target ${text}`);
    }
  }
  lines.push(`   ${c.epochs} epoch(s), ${c.seconds.toFixed(1)} s`);
  return lines;
}

function readyRows(r: ReadyResult, what: string): Row[] {
  return [
    { label: `raw clients, default (legacy), ${what}`, unit: 'ms', summary: r.rawMs },
    { label: `raw clients, auto, ${what}`, unit: 'ms', summary: r.rawAutoMs },
    {
      label: `muster initialize(), first contact, fresh MUSTER_HOME`,
      unit: 'ms',
      summary: r.musterFirstMs,
    },
    {
      label: `muster initialize(), cached verdicts (second agent)`,
      unit: 'ms',
      summary: r.musterSecondMs,
    },
  ];
}

function readyLines(
  r: ReadyResult,
  name: string,
  first: number,
  cached: number,
  out: TargetLine[],
): string[] {
  const f = r.musterFirstMs.median / r.rawMs.median;
  const s = r.musterSecondMs.median / r.rawMs.median;
  const fa = r.musterFirstMs.median / r.rawAutoMs.median;
  const sa = r.musterSecondMs.median / r.rawAutoMs.median;
  const firstText = `${name}, first contact: ${x(f)} raw legacy (${x(fa)} raw auto), target <= ${x(first)}: ${verdict(f <= first)}`;
  const cachedText = `${name}, cached: ${x(s)} raw legacy (${x(sa)} raw auto), target <= ${x(cached)}: ${verdict(s <= cached)}`;
  out.push({ name: `${name} first`, met: f <= first, text: firstText });
  out.push({ name: `${name} cached`, met: s <= cached, text: cachedText });
  return [
    `   target ${firstText}`,
    `   target ${cachedText}`,
    `   Muster era ${r.musterEra}, ${r.tools} tools; ${r.seconds.toFixed(1)} s`,
  ];
}

/** The MCP tables and notes, ready to print (sections 5 to 10), and the judged targets. */
export function formatMcpReport(r: McpBenchResult): { text: string; targets: TargetLine[] } {
  const { stdio, http, sdk, big } = r.calls;
  const targets: TargetLine[] = [];
  const perCall = { direct: MCP_TARGETS.direct, agent: { plusUs: MCP_TARGETS.agentPlusUs } };
  const sections = [
    formatTable('5. MCP echo over stdio (µs per call)', callRows(stdio, 1), 1),
    ...judge(stdio, perCall, 'stdio', targets),
    '',
    formatTable('6. MCP echo over Streamable HTTP (µs per call)', callRows(http, 1), 1),
    ...judge(http, perCall, 'HTTP', targets),
    '',
    formatTable(
      '7. in-process sdk tool vs raw in-memory McpServer (µs per call)',
      callRows(sdk, 1),
      1,
    ),
    ...judge(
      sdk,
      { direct: MCP_TARGETS.sdk, agent: { ratio: MCP_TARGETS.sdk }, strict: true },
      'in process',
      targets,
    ),
    '',
    formatTable(
      `8. ${r.startup.servers} stdio servers ready, distinct declarations (ms)`,
      readyRows(r.startup, 'in parallel'),
      1,
    ),
    ...readyLines(
      r.startup,
      `${r.startup.servers} servers ready`,
      MCP_TARGETS.firstContact,
      MCP_TARGETS.cached,
      targets,
    ),
    `   Muster startup concurrency ${r.startup.startupConcurrency}`,
    '',
    formatTable(
      `9. a ${r.catalog.tools}-tool catalog ready (ms)`,
      readyRows(r.catalog, 'connect + tools/list'),
      1,
    ),
    ...readyLines(
      r.catalog,
      `${r.catalog.tools}-tool catalog`,
      MCP_TARGETS.catalog,
      MCP_TARGETS.catalog,
      targets,
    ),
    '',
    formatTable(
      '10. a 1 MiB result over stdio, archived by Muster (ms per call)',
      callRows(big, 1e-3),
      2,
    ),
    ...judge(big, { agent: { ratio: MCP_TARGETS.bigResult } }, '1 MiB result', targets),
    '',
    `   MCP bench: ${r.seconds.toFixed(1)} s; ${r.leftoverChildren === undefined ? 'child processes not checked (no /proc)' : `${r.leftoverChildren.length} child process(es) left after closing everything${r.leftoverChildren.length > 0 ? `: ${r.leftoverChildren.join(', ')}` : ''}`}`,
  ];
  return { text: sections.join('\n'), targets };
}

/** The MCP figures for the final `bench:` summary line. */
export function mcpSummary(r: McpBenchResult): string {
  const { stdio, http, sdk, big } = r.calls;
  const seq = (c: CallComparison) => c.variants.find((v) => v.variant === 'sequential')!;
  const pair = (c: CallComparison) => {
    const v = seq(c);
    return `direct ${x(ratios(v, v.directUs).p50)}, turn ${x(ratios(v, v.agentUs).p50)}`;
  };
  return [
    `MCP p50 vs raw legacy: stdio ${pair(stdio)}`,
    `HTTP ${pair(http)}`,
    `in process ${pair(sdk)}`,
    `${r.startup.servers} servers ready ${x(r.startup.musterFirstMs.median / r.startup.rawMs.median)}/${x(r.startup.musterSecondMs.median / r.startup.rawMs.median)} first/cached`,
    `${r.catalog.tools}-tool catalog ${x(r.catalog.musterFirstMs.median / r.catalog.rawMs.median)}`,
    `1 MiB result ${x(ratios(seq(big), seq(big).agentUs).p50)}`,
  ].join(', ');
}
