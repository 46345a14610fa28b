/**
 * What each patch to the official MCP client (bench/upstream/patches.ts) gains on one echo
 * call over stdio (`basic-server.mjs`), for docs/performance.md ("The official client's
 * share"):
 *
 *   npm run bench:upstream -- [--calls=N] [--blocks=N] [--rounds=N] [--warmup=N] [--group=N]
 *                             [--only=id,id]
 *   npm run bench:upstream -- --check | --list
 *   npm run bench:upstream -- --vitest=test/a.test.ts,test/b.test.ts [--only=id,id]
 *
 * Every variant (the unpatched client, each patch alone, all patches together) is a copy of
 * the installed `@modelcontextprotocol/client` under the system temp folder, removed at the
 * end (node_modules is never written; a `find` that does not occur exactly once fails the
 * run before anything runs). A resolve hook (`bench/upstream/register-hooks.mjs`, loaded with
 * `--import`) makes `@modelcontextprotocol/client` and its subpaths resolve to a copy.
 *
 * First, `bench/upstream/parity-child.ts` runs once per variant, and every patched variant's
 * outcomes must equal the unpatched client's (`--check` stops there). Then, per round, the
 * variants are split into groups of `group` (shuffled per round), and each group runs in a
 * process of its own (`bench/upstream/echo-child.ts`) next to the unpatched client: every
 * variant is loaded as its own module graph (its own Muster dist/ and its own client copy),
 * the baseline's place in the loading order moving from process to process. Per variant the
 * process times the raw client (`callTool`) and Muster's direct call (`agent.mcp.callTool`
 * from dist/, `mcp.protocol.mode: legacy`), and next to all patches together also the AI
 * SDK's client (when bench/peers is installed): `warmup` untimed calls each, then `blocks`
 * blocks in which every caller makes 10 untimed and `calls / blocks` timed sequential calls,
 * in a rotating order, so that baseline and variants take turns every few hundred calls and
 * the machine's noise hits them alike. Each call's wall time and this process's CPU time
 * are recorded. A gain is the median over all blocks of (baseline − variant) in the block
 * (the block's median wall time, median CPU, mean CPU), with the range of the rounds' own
 * medians. JIT and memory layout differ from one module graph to the next, however alike
 * (the `unpatched` row, a second plain copy, shows by how much), so many processes with few
 * calls beat few with many. The process runs on CPU 0 and the servers on CPU 1 (`taskset`)
 * unless `BENCH_PIN=0` or there is no `taskset` or second CPU. Needs `npm run build`.
 *
 * `--vitest` runs the given test files with the client patched by all chosen patches instead.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile } from './stats.js';
import type { BlockReport, ChildReport } from './upstream/echo-child.js';
import {
  installedClientDir,
  patchedClient,
  type PatchedClient,
} from './upstream/patched-client.js';
import { UPSTREAM_PATCHES, type UpstreamPatch } from './upstream/patches.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./upstream/echo-child.ts', import.meta.url));
const PARITY = fileURLToPath(new URL('./upstream/parity-child.ts', import.meta.url));
const HOOKS = fileURLToPath(new URL('./upstream/register-hooks.mjs', import.meta.url));
const PEER_MARKER = join(ROOT, 'bench/peers/node_modules/@ai-sdk/mcp/package.json');

interface Options {
  readonly calls: number;
  readonly blocks: number;
  readonly rounds: number;
  readonly warmup: number;
  /** Variants per measurement process (each next to the baseline). */
  readonly group: number;
  readonly only: readonly string[] | undefined;
  readonly list: boolean;
  /** Only the behaviour check, no measurement. */
  readonly check: boolean;
  /** Test files to run with the patched client instead of measuring. */
  readonly vitest: readonly string[] | undefined;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string) =>
    argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const count = (name: string, fallback: number) => {
    const n = Number(value(name) ?? fallback);
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`upstream-gain: --${name} must be >= 1`);
    return n;
  };
  return {
    calls: count('calls', 300),
    blocks: count('blocks', 3),
    rounds: count('rounds', 6),
    warmup: count('warmup', 300),
    group: count('group', 3),
    only: value('only')
      ?.split(',')
      .filter((id) => id !== ''),
    list: argv.includes('--list'),
    check: argv.includes('--check'),
    vitest: value('vitest')
      ?.split(',')
      .filter((f) => f !== ''),
  };
}

/**
 * The variants split into groups of `size` for one round, in an order shuffled per round (a
 * fixed seed per round), so that a variant shares its process with different ones each time.
 */
function groups<T>(items: readonly T[], size: number, round: number): T[][] {
  let seed = Math.imul(round + 1, 2654435761) >>> 0;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j] as T, shuffled[i] as T];
  }
  const count = Math.ceil(shuffled.length / size);
  // as even as possible: sizes differ by one at most
  return Array.from({ length: count }, (_, g) => shuffled.filter((_, i) => i % count === g));
}

/** A client variant: a copy of the client with some patches. */
interface Variant {
  readonly label: string;
  readonly patches: readonly UpstreamPatch[];
}

type Pin = { readonly client: string; readonly server: string };

/** The CPUs to pin to, or why not. */
function pinning(): Pin | string {
  if (process.env.BENCH_PIN === '0') return 'BENCH_PIN=0';
  if (availableParallelism() < 2) return 'one CPU';
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0) return 'no taskset';
  return { client: '0', server: '1' };
}

/** The environment that gives a child process the copies (tag -> copy). */
function hookEnv(copies: Readonly<Record<string, PatchedClient>>): NodeJS.ProcessEnv {
  const dirs = Object.fromEntries(Object.entries(copies).map(([tag, copy]) => [tag, copy.dir]));
  return {
    ...process.env,
    MUSTER_UPSTREAM_COPIES: JSON.stringify(dirs),
    MUSTER_UPSTREAM_ORIGINAL: installedClientDir(),
  };
}

/** Runs a TypeScript file under the resolve hook; resolves with its last line of output. */
function runScript(
  label: string,
  script: string,
  env: NodeJS.ProcessEnv,
  cpu: string | undefined,
): Promise<string> {
  const nodeArgs = ['--import', 'tsx', '--import', pathToFileURL(HOOKS).href, script];
  const [command, args] =
    cpu === undefined
      ? [process.execPath, nodeArgs]
      : ['taskset', ['-c', cpu, process.execPath, ...nodeArgs]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) {
        reject(new Error(`upstream-gain: ${label} exited ${code}:\n${err}${out}`));
      } else resolve(line);
    });
  });
}

/**
 * Runs the behaviour scenarios (`upstream/parity-child.ts`) with every variant and fails
 * unless each one's outcomes equal the unpatched client's.
 */
async function checkParity(
  variants: readonly Variant[],
  copies: ReadonlyMap<string, PatchedClient>,
): Promise<string> {
  const outcomes = new Map<string, string>();
  for (const v of variants) {
    const env = hookEnv({ single: copies.get(v.label) as PatchedClient });
    outcomes.set(v.label, await runScript(`${v.label} (behaviour)`, PARITY, env, undefined));
  }
  const base = outcomes.get('baseline') as string;
  const baseJson = JSON.parse(base) as Record<string, unknown>;
  for (const [label, line] of outcomes) {
    if (line === base) continue;
    const json = JSON.parse(line) as Record<string, unknown>;
    const differ = Object.keys(baseJson).filter(
      (k) => JSON.stringify(json[k]) !== JSON.stringify(baseJson[k]),
    );
    throw new Error(
      `upstream-gain: ${label} behaves differently from the unpatched client in: ${differ.join(', ')}\n` +
        differ
          .map((k) => `  ${k}: ${JSON.stringify(baseJson[k])}\n  -> ${JSON.stringify(json[k])}`)
          .join('\n'),
    );
  }
  return (
    `behaviour: the ${outcomes.size - 1} other variants give the unpatched client's outcomes ` +
    `in ${Object.keys(baseJson).length} scenarios (upstream/parity-child.ts), and every ` +
    `measured caller's first echo answered its content`
  );
}

/** Runs vitest on `files` with the client replaced by `copy`. */
function runVitest(files: readonly string[], copy: PatchedClient): number {
  const env = hookEnv({ single: copy });
  env.NODE_OPTIONS =
    `${process.env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(HOOKS).href}`.trim();
  const run = spawnSync('npx', ['vitest', 'run', ...files], { cwd: ROOT, env, stdio: 'inherit' });
  return run.status ?? 1;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

/**
 * Per variant (the process pairs it with the baseline): per caller (`baseline/raw`,
 * `<label>/raw`, `baseline/muster`, `<label>/muster`, `ai-sdk`), per round, its blocks.
 */
type Results = Map<string, Map<string, BlockReport[][]>>;

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** What is compared: a block's median wall time, median CPU per call, mean CPU per call. */
const METRICS = {
  wall: (b: BlockReport) => median(b.wallUs),
  cpu: (b: BlockReport) => median(b.cpuUs),
  cpuMean: (b: BlockReport) => mean(b.cpuUs),
} as const;
type Metric = keyof typeof METRICS;

/** Per round and block: metric(a) − metric(b), blocks paired by round and position. */
function pairedDiffs(a: BlockReport[][], b: BlockReport[][], metric: Metric): number[][] {
  const m = METRICS[metric];
  return a.map((round, r) =>
    round.map((block, i) => {
      const other = b[r]?.[i];
      return other ? m(block) - m(other) : Number.NaN;
    }),
  );
}

/** The median of paired differences over all blocks, and the range of the rounds' medians. */
function pairedGain(diffs: number[][]): string {
  const perRound = diffs.map((round) => median(round));
  const all = median(diffs.flat());
  return `${f1(all)} [${f1(Math.min(...perRound))}..${f1(Math.max(...perRound))}]`;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** p50 and p99 of the wall times, median and mean of the CPU times. */
function totals(rounds: readonly BlockReport[][]): [string, string, string, string] {
  const walls = rounds.flat().flatMap((b) => b.wallUs);
  const sorted = [...walls].sort((a, b) => a - b);
  const cpus = rounds.flat().flatMap((b) => b.cpuUs);
  return [f1(percentile(sorted, 50)), f1(percentile(sorted, 99)), f1(median(cpus)), f1(mean(cpus))];
}

function report(results: Results, variants: readonly Variant[]): string {
  const lines: string[] = [];
  for (const kind of ['raw', 'muster'] as const) {
    const rows: string[][] = [
      [
        'variant',
        'p50',
        'p99',
        'CPU med',
        'CPU mean',
        'gain p50 [rounds]',
        'gain CPU med [rounds]',
        'gain CPU mean [rounds]',
      ],
    ];
    // the baseline's figures over every process it ran in
    const baseAll = [...results.values()].flatMap(
      (callers) => callers.get(`baseline/${kind}`) ?? [],
    );
    if (baseAll.length === 0) continue;
    rows.push(['baseline', ...totals(baseAll), '', '', '']);
    for (const v of variants) {
      const callers = results.get(v.label);
      const base = callers?.get(`baseline/${kind}`);
      const x = callers?.get(`${v.label}/${kind}`);
      if (!base || !x) continue;
      const g = (metric: Metric) => pairedGain(pairedDiffs(base, x, metric));
      rows.push([v.label, ...totals(x), g('wall'), g('cpu'), g('cpuMean')]);
    }
    lines.push(
      kind === 'raw'
        ? 'raw official client, client.callTool (legacy era, its default), µs per call:'
        : "Muster's direct call, agent.mcp.callTool (mcp.protocol.mode: legacy), µs per call:",
      table(rows),
      '',
    );
  }
  const allLabel = variants.at(-1)?.label;
  const together = allLabel === undefined ? undefined : results.get(allLabel);
  const peer = together?.get('ai-sdk');
  if (peer && together) {
    const [p50, p99, cpuMedian, cpuMean] = totals(peer);
    lines.push(
      `AI SDK @ai-sdk/mcp (reference, in the '${allLabel}' processes): p50 ${p50}, p99 ${p99}, ` +
        `CPU median ${cpuMedian}, CPU mean ${cpuMean} µs per call`,
      `The gap to the AI SDK, and what '${allLabel}' closes of it (medians of per-block ` +
        'differences in the same processes, µs):',
    );
    for (const kind of ['raw', 'muster'] as const) {
      const base = together.get(`baseline/${kind}`);
      const all = together.get(`${allLabel}/${kind}`);
      if (!base || !all) continue;
      for (const [metric, name] of [
        ['wall', 'p50 wall'],
        ['cpu', 'CPU median'],
        ['cpuMean', 'CPU mean'],
      ] as const) {
        const gap = median(pairedDiffs(base, peer, metric).flat());
        const closed = median(pairedDiffs(base, all, metric).flat());
        const left = median(pairedDiffs(all, peer, metric).flat());
        lines.push(
          `  ${kind.padEnd(6)} ${name.padEnd(10)}: gap ${f1(gap)}, closed ${f1(closed)} ` +
            `(${f1((closed / gap) * 100)} %), patched − AI SDK ${f1(left)}`,
        );
      }
    }
  }
  return lines.join('\n');
}

function choose(only: readonly string[] | undefined): readonly UpstreamPatch[] {
  if (!only) return UPSTREAM_PATCHES;
  return only.map((id) => {
    const patch = UPSTREAM_PATCHES.find((p) => p.id === id);
    if (!patch) throw new Error(`upstream-gain: no patch '${id}' (see --list)`);
    return patch;
  });
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.list) {
    for (const p of UPSTREAM_PATCHES) process.stdout.write(`${p.id.padEnd(18)} ${p.title}\n`);
    return;
  }
  const chosen = choose(options.only);
  const variants: Variant[] = [
    { label: 'baseline', patches: [] },
    // a second unpatched copy, measured like a patch: what a gain of zero looks like
    ...(options.vitest ? [] : [{ label: 'unpatched', patches: [] }]),
    ...(options.vitest ? [] : chosen.map((p) => ({ label: p.id, patches: [p] }))),
    ...(chosen.length > 1 || options.vitest ? [{ label: 'all', patches: chosen }] : []),
  ];
  if (!existsSync(join(ROOT, 'dist/index.js'))) {
    throw new Error('upstream-gain: run npm run build first');
  }
  const copies = new Map<string, PatchedClient>();
  const removeAll = () => {
    for (const copy of copies.values()) copy.remove();
    copies.clear();
  };
  process.once('SIGINT', () => {
    removeAll();
    process.exit(130);
  });
  try {
    // every copy is made (every patch applied) before anything runs
    for (const v of variants) copies.set(v.label, patchedClient(v.patches));
    if (options.vitest) {
      process.stdout.write(`vitest, client patched by: ${chosen.map((p) => p.id).join(', ')}\n`);
      process.exitCode = runVitest(options.vitest, copies.get('all') as PatchedClient);
      return;
    }
    const behaviour = await checkParity(variants, copies);
    process.stderr.write(`${behaviour}\n`);
    if (options.check) return;
    const pin = pinning();
    const peer = existsSync(PEER_MARKER);
    const version = (
      JSON.parse(readFileSync(join(installedClientDir(), 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const results: Results = new Map();
    const started = Date.now();
    const paired = variants.filter((v) => v.label !== 'baseline');
    const last = paired.at(-1);
    for (let round = 0; round < options.rounds; round++) {
      for (const [index, group] of groups(paired, options.group, round).entries()) {
        // the baseline's place among the loaded variants moves from process to process
        const labels = group.map((v) => v.label);
        const at = (round + index) % (labels.length + 1);
        const tags = [...labels.slice(0, at), 'baseline', ...labels.slice(at)];
        const env = {
          ...hookEnv(
            Object.fromEntries(tags.map((tag) => [tag, copies.get(tag) as PatchedClient])),
          ),
          MUSTER_UPSTREAM_LABELS: JSON.stringify(tags),
          // the AI SDK runs next to the baseline and all patches together
          MUSTER_UPSTREAM_PEER: peer && last !== undefined && group.includes(last) ? '1' : '0',
          MUSTER_UPSTREAM_CALLS: String(options.calls),
          MUSTER_UPSTREAM_BLOCKS: String(options.blocks),
          MUSTER_UPSTREAM_WARMUP: String(options.warmup),
          MUSTER_UPSTREAM_SERVER_CPU: typeof pin === 'string' ? '' : pin.server,
        };
        const line = await runScript(
          `round ${round + 1}, ${labels.join(' ')}`,
          CHILD,
          env,
          typeof pin === 'string' ? undefined : pin.client,
        );
        const child = JSON.parse(line) as ChildReport;
        for (const tag of tags) {
          const expected = pathToFileURL((copies.get(tag) as PatchedClient).dir).href;
          if (!child.clients[tag]?.startsWith(expected)) {
            throw new Error(`upstream-gain: ${tag} loaded the client from ${child.clients[tag]}`);
          }
        }
        // each variant is paired with the baseline of its own process
        const shared = ['baseline/raw', 'baseline/muster', 'ai-sdk'];
        for (const v of group) {
          const callers = results.get(v.label) ?? new Map<string, BlockReport[][]>();
          results.set(v.label, callers);
          for (const [name, blocks] of Object.entries(child.callers)) {
            if (!name.startsWith(`${v.label}/`) && !shared.includes(name)) continue;
            callers.set(name, [...(callers.get(name) ?? []), [...blocks]]);
          }
        }
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      process.stderr.write(`round ${round + 1}/${options.rounds} done (${seconds} s)\n`);
    }
    const header = [
      `upstream-gain: @modelcontextprotocol/client ${version}, ${new Date().toISOString().slice(0, 10)}, ` +
        `Node ${process.version}, ${availableParallelism()} CPUs, ` +
        (typeof pin === 'string'
          ? `not pinned (${pin})`
          : `client process on CPU ${pin.client}, servers on CPU ${pin.server}`),
      `${options.rounds} rounds x ${options.blocks} blocks x ${Math.round(options.calls / options.blocks)} calls ` +
        `per caller, ${options.group} variants per process next to the baseline (after ` +
        `${options.warmup} untimed calls each); gain = median over all blocks of (baseline − ` +
        `variant) in the block [range of the rounds' medians]`,
      ...chosen.map((p) => `  ${p.id.padEnd(18)} ${p.title}`),
      behaviour,
      '',
    ];
    process.stdout.write(`${header.join('\n')}\n${report(results, variants)}\n`);
  } finally {
    removeAll();
  }
}

await main();
