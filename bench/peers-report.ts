import type { ImportTimeResult } from './import-time.js';
import type { TargetLine } from './mcp-report.js';
import type { ClientSamples, PeerRow, PeerRows } from './peers-rows.js';
import type { RssSample } from './peers-rss.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

/** The targets of "Ahead of every peer per call" that `npm run bench:peers` judges. */
export const PEER_TARGETS = Object.freeze({
  /** A full agent tool turn (stdio, HTTP), p50: at most the raw client's p50 plus this (µs). */
  agentPlusUs: 100,
  /** `import('muster-agent')` from dist, median, in ms. */
  importMs: 80,
});

const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
const x = (ratio: number) => (Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : '-');
const signed = (us: number) => `${us >= 0 ? '+' : ''}${us.toFixed(1)} µs`;

interface Stat {
  readonly client: ClientSamples;
  readonly s: Summary;
}

function stats(row: PeerRow): Stat[] {
  return row.clients.map((client) => ({ client, s: summarize(client.samples) }));
}

/** The peer with the lowest p50 in a row, if any. */
function fastestPeer(all: readonly Stat[]): Stat | undefined {
  return all.filter((a) => a.client.kind === 'peer').sort((a, b) => a.s.median - b.s.median)[0];
}

function pad(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[0]!) : c.padStart(widths[i]!))).join('');
}

/** A fixed-width table: p50, p99, n and the ratios to raw (legacy) and to the fastest peer. */
function table(number: string, row: PeerRow, all: readonly Stat[], digits: number): string[] {
  const raw = all.find((a) => a.client.kind === 'raw');
  const peer = fastestPeer(all);
  const title = `${number}. ${row.title}: ${row.unit}${row.unit === 'µs' ? ' per call' : ''}`;
  const label = (c: ClientSamples) => (c.era === '' ? c.label : `${c.label} [${c.era}]`);
  const widths = [
    Math.max(...all.map((a) => label(a.client).length), 20) + 2,
    10,
    10,
    7,
    10,
    10,
    11,
    11,
  ];
  const header = pad(
    ['client', 'p50', 'p99', 'n', '/raw p50', '/raw p99', '/peer p50', '/peer p99'],
    widths,
  );
  const lines = all.map((a) =>
    pad(
      [
        label(a.client),
        a.s.median.toFixed(digits),
        a.s.p99.toFixed(digits),
        String(a.s.n),
        raw ? x(a.s.median / raw.s.median) : '-',
        raw ? x(a.s.p99 / raw.s.p99) : '-',
        peer ? x(a.s.median / peer.s.median) : '-',
        peer ? x(a.s.p99 / peer.s.p99) : '-',
      ],
      widths,
    ),
  );
  const peerNote = peer
    ? `fastest peer (lowest p50): ${peer.client.label.replace(/^peer: /, '')}`
    : 'no peer';
  return [title, header, '-'.repeat(header.length), ...lines, `   ${peerNote}`];
}

function find(all: readonly Stat[], kind: ClientSamples['kind']): Stat {
  const found = all.find((a) => a.client.kind === kind);
  if (!found) throw new Error(`bench:peers: no ${kind} client in a row`);
  return found;
}

/** Direct call ≤ the fastest peer at p50 and p99 (≤ raw at both where the row has no peer). */
function judgeDirect(name: string, all: readonly Stat[], out: TargetLine[]): string[] {
  const direct = find(all, 'muster-direct').s;
  const raw = find(all, 'raw').s;
  const peer = fastestPeer(all);
  const vsRaw = direct.median <= raw.median && direct.p99 <= raw.p99;
  // Muster speaking the other era than the raw client's default: also the raw client in the
  // same era (its `auto` one, modern), for the client's share of the era's cost
  const directEra = find(all, 'muster-direct').client.era;
  const sameEra =
    directEra !== find(all, 'raw').client.era
      ? all.find((a) => a.client.kind === 'raw-auto' && a.client.era === directEra)
      : undefined;
  const sameEraText = sameEra
    ? `; p50 ${x(direct.median / sameEra.s.median)}, p99 ${x(direct.p99 / sameEra.s.p99)} raw auto, the same era (${directEra})`
    : '';
  const rawText = `p50 ${x(direct.median / raw.median)}, p99 ${x(direct.p99 / raw.p99)} raw legacy${sameEraText}`;
  let met: boolean;
  let text: string;
  if (peer) {
    met = direct.median <= peer.s.median && direct.p99 <= peer.s.p99;
    text = `${name}, agent.mcp.callTool <= fastest peer (${peer.client.label.replace(/^peer: /, '')}) at p50 and p99: p50 ${x(direct.median / peer.s.median)}, p99 ${x(direct.p99 / peer.s.p99)}: ${verdict(met)} (${rawText}: ${vsRaw ? 'within' : 'over'} raw)`;
  } else {
    met = vsRaw;
    text = `${name}, agent.mcp.callTool <= raw legacy at p50 and p99 (no peer): ${rawText}: ${verdict(met)}`;
  }
  out.push({ name: `${name} direct`, met, text });
  return [`   target ${text}`];
}

/** Agent tool turn p50 ≤ raw p50 + 100 µs; also prints the difference. */
function judgeAgent(name: string, all: readonly Stat[], out: TargetLine[]): string[] {
  const agent = find(all, 'muster-agent').s;
  const raw = find(all, 'raw').s;
  const plus = agent.median - raw.median;
  const met = plus <= PEER_TARGETS.agentPlusUs;
  const text = `${name}, agent tool turn p50 <= raw p50 + ${PEER_TARGETS.agentPlusUs} µs: ${signed(plus)}: ${verdict(met)}`;
  out.push({ name: `${name} agent turn`, met, text });
  return [`   agent turn − raw p50: ${signed(plus)}`, `   target ${text}`];
}

/** First contact p50 ≤ the fastest peer's p50. */
function judgeReady(name: string, all: readonly Stat[], out: TargetLine[]): string[] {
  const first = find(all, 'muster-first').s;
  const cached = find(all, 'muster-cached').s;
  const raw = find(all, 'raw').s;
  const peer = fastestPeer(all);
  const base = peer ?? find(all, 'raw');
  const met = first.median <= base.s.median;
  const text = `${name}, first contact p50 <= ${peer ? `fastest peer (${peer.client.label.replace(/^peer: /, '').replace(/, in parallel$/, '')})` : 'raw legacy (no peer)'} p50: ${x(first.median / base.s.median)}: ${verdict(met)} (cached ${x(cached.median / base.s.median)}; ${x(first.median / raw.median)} / ${x(cached.median / raw.median)} raw legacy)`;
  out.push({ name: `${name} first contact`, met, text });
  return [`   target ${text}`];
}

function rssLines(number: string, rss: readonly RssSample[], out: TargetLine[]): string[] {
  const rows = rss.map((r) => ({ r, s: summarize(r.maxRssMb), echo: summarize(r.echoMaxRssMb) }));
  const raw = rows.find((a) => a.r.kind === 'raw')!;
  const muster = rows.find((a) => a.r.kind === 'muster')!;
  const width = Math.max(...rows.map((a) => a.r.label.length)) + 2;
  const lines = rows.map(
    (a) =>
      `${a.r.label.padEnd(width)}${a.s.median.toFixed(1).padStart(9)}${a.s.max.toFixed(1).padStart(9)}${String(a.s.n).padStart(5)}${x(a.s.median / raw.s.median).padStart(10)}${a.echo.median.toFixed(1).padStart(13)}${x(a.echo.median / raw.echo.median).padStart(10)}`,
  );
  const met = muster.s.median <= raw.s.median;
  const text = `peak RSS, muster agent <= raw client: ${muster.s.median.toFixed(1)} MB vs ${raw.s.median.toFixed(1)} MB, ${x(muster.s.median / raw.s.median)}: ${verdict(met)}`;
  out.push({ name: 'peak RSS', met, text });
  return [
    `${number}. peak RSS, one process per client (maxRSS, MB; server processes not counted)`,
    `${'client'.padEnd(width)}${'median'.padStart(9)}${'max'.padStart(9)}${'n'.padStart(5)}${'/raw'.padStart(10)}${'echo phase'.padStart(13)}${'/raw'.padStart(10)}`,
    '-'.repeat(width + 56),
    ...lines,
    `   target ${text}`,
  ];
}

/** What {@link formatPeersReport} takes. */
export interface PeersReportInput {
  readonly rows: PeerRows;
  readonly rss: readonly RssSample[];
  /** Its workload, for the heading. */
  readonly rssWork: string;
  readonly imports: ImportTimeResult;
}

/** The tables and targets of `npm run bench:peers`, ready to print. */
export function formatPeersReport(r: PeersReportInput): { lines: string[]; targets: TargetLine[] } {
  const targets: TargetLine[] = [];
  const stdio = stats(r.rows.stdio);
  const http = stats(r.rows.http);
  const ready = stats(r.rows.ready);
  const big = stats(r.rows.big);
  const importMet = r.imports.importMs.median <= PEER_TARGETS.importMs;
  const importText = `import('muster-agent') from dist <= ${PEER_TARGETS.importMs} ms: median ${r.imports.importMs.median.toFixed(1)} ms (p99 ${r.imports.importMs.p99.toFixed(1)}, n ${r.imports.importMs.n}): ${verdict(importMet)}`;
  const lines = [
    ...table('1', r.rows.stdio, stdio, 1),
    ...judgeDirect('stdio', stdio, targets),
    ...judgeAgent('stdio', stdio, targets),
    '',
    ...table('2', r.rows.http, http, 1),
    ...judgeDirect('HTTP', http, targets),
    ...judgeAgent('HTTP', http, targets),
    '',
    ...table('3', r.rows.ready, ready, 1),
    ...judgeReady('servers ready', ready, targets),
    '',
    ...table('4', r.rows.big, big, 2),
    '',
    ...rssLines('5', r.rss, targets).map((l, i) => (i === 0 ? `${l}: ${r.rssWork}` : l)),
    '',
    `6. ${importText}`,
  ];
  targets.push({ name: 'import', met: importMet, text: importText });
  return { lines, targets };
}
