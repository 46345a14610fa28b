import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import type { StdioLaunch } from '../test/support/mcp-fixtures.js';
import { compareCalls } from './mcp-compare.js';
import type { CallCaseSpec, CallComparison } from './mcp-compare.js';
import { echoInput, peerBaselines, rawBaseline } from './mcp-endpoints.js';
import type { Baseline, ToolCall } from './mcp-endpoints.js';
import type { SampleCounts } from './mcp-calls.js';
import { settledChildren } from './child-processes.js';
import { musterReady, rawReady } from './mcp-startup.js';
import type { PeerClient } from './peers.js';

const ECHO: ToolCall = Object.freeze({ tool: 'echo', args: Object.freeze({ text: 'hello' }) });
const BIG: ToolCall = Object.freeze({ tool: 'big', args: Object.freeze({ kib: 1024 }) });
const HTTP_SERVER = fileURLToPath(new URL('./peers-http-server.mjs', import.meta.url));

/** Who a client of a row is, for ratios and targets. */
export type ClientKind =
  | 'raw'
  | 'raw-auto'
  | 'peer'
  | 'muster-direct'
  | 'muster-agent'
  | 'muster-first'
  | 'muster-cached';

/** One client's samples in one row, pooled over the rounds. */
export interface ClientSamples {
  readonly label: string;
  readonly kind: ClientKind;
  /** The protocol era it spoke (`?` when unknown). */
  readonly era: string;
  readonly samples: number[];
}

/** One measured row: every client's pooled samples, in one unit. */
export interface PeerRow {
  readonly title: string;
  readonly unit: 'µs' | 'ms';
  readonly clients: readonly ClientSamples[];
}

/** The rows measured in every round, in their order. */
export type RowName = 'stdio' | 'http' | 'ready' | 'big';

/** The four rows measured in rounds. */
export interface PeerRows {
  readonly stdio: PeerRow;
  readonly http: PeerRow;
  readonly ready: PeerRow;
  readonly big: PeerRow;
  readonly rounds: number;
  /** Wall time of every row in every round. */
  readonly roundSeconds: readonly Readonly<Record<RowName, number>>[];
}

/** What {@link measurePeerRows} takes. */
export interface PeerRowsOptions {
  readonly peers: readonly PeerClient[];
  /** How a server launch is wrapped (the same for every client). */
  readonly wrap: (launch: StdioLaunch) => StdioLaunch;
  /** How the ten servers started at once are wrapped (the same for every client). */
  readonly spread: (launch: StdioLaunch) => StdioLaunch;
  readonly rounds: number;
  /** Per round. */
  readonly stdio: SampleCounts;
  /** Per round. */
  readonly http: SampleCounts;
  /** Per round. */
  readonly big: SampleCounts;
  /** Ten-servers-ready samples of every client per round. */
  readonly readyRepetitions: number;
  /** How many servers in the ready row. Default 10. */
  readonly servers?: number;
  /** Sequential calls per sample of the echo rows. Default 8. */
  readonly batch?: number;
  /** A forced GC, run between samples (untimed). */
  readonly collect: () => void;
  /** Called after every round, with the wall time of each row in it. */
  readonly onRound?: (round: number, seconds: Readonly<Record<RowName, number>>) => void;
}

function stdioTarget(launch: StdioLaunch) {
  return async () => ({
    target: { kind: 'stdio' as const, command: launch.command, args: launch.args },
    close: async () => undefined,
  });
}

function stdioBaselines(
  launch: StdioLaunch,
  call: ToolCall,
  peers: readonly PeerClient[],
): Baseline[] {
  return [
    rawBaseline('legacy', call, () => new StdioClientTransport(launch)),
    rawBaseline('auto', call, () => new StdioClientTransport(launch)),
    ...peerBaselines(peers, call, 'stdio', stdioTarget(launch)),
  ];
}

/**
 * The sequential variant of a comparison as row clients (baselines, direct, agent turn), its
 * µs samples multiplied by `factor`.
 */
function callClients(c: CallComparison, peers: readonly PeerClient[], factor = 1): ClientSamples[] {
  const v = c.variants.find((x) => x.variant === 'sequential')!;
  const scaled = (samples: readonly number[]) => samples.map((us) => us * factor);
  const label = (b: { label: string; role: string }) => {
    const peer = peers.find((p) => b.label === `peer: ${p.label}`);
    return peer ? `peer: ${peer.short}` : b.label;
  };
  return [
    ...v.baselines.map(
      (b, i): ClientSamples => ({
        label: label(b),
        kind: b.role === 'ref' ? 'raw' : b.role,
        era: b.era,
        samples: scaled(v.samples.baselines[i]!),
      }),
    ),
    {
      label: 'muster agent.mcp.callTool',
      kind: 'muster-direct',
      era: c.musterEra,
      samples: scaled(v.samples.direct),
    },
    {
      label: 'muster agent tool turn (durationMs)',
      kind: 'muster-agent',
      era: c.musterEra,
      samples: scaled(v.samples.agent),
    },
  ];
}

/** Appends `next`'s samples to `pool` client by client (same clients, same order). */
function pool(into: ClientSamples[] | undefined, next: ClientSamples[]): ClientSamples[] {
  if (into === undefined) return next;
  next.forEach((c, i) => into[i]!.samples.push(...c.samples));
  return into;
}

/** The HTTP fixture in its own process (launched like a stdio server); resolves its URL. */
export async function startHttpServer(
  wrap: (launch: StdioLaunch) => StdioLaunch,
): Promise<{ url: string; close: () => Promise<void> }> {
  const launch = wrap({ command: process.execPath, args: [HTTP_SERVER] });
  const child = spawn(launch.command, launch.args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`HTTP bench server exited (${code})`)));
  });
  lines.close();
  return {
    url,
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Every peer connecting to every launch in parallel and listing tools; returns ms. */
async function peerReady(peer: PeerClient, launches: readonly StdioLaunch[]): Promise<number> {
  const start = performance.now();
  const settled = await Promise.allSettled(
    launches.map((l) => peer.ready({ kind: 'stdio', command: l.command, args: l.args })),
  );
  const ms = performance.now() - start;
  await Promise.allSettled(
    settled.map((s) => (s.status === 'fulfilled' ? s.value.close() : undefined)),
  );
  for (const s of settled) {
    if (s.status === 'rejected') throw s.reason;
    if (s.value.tools < 1) throw new Error(`${peer.short}: no tools listed`);
  }
  return ms;
}

/**
 * One round of the ready row: every client once per repetition, the order rotating; Muster
 * first in a fresh `MUSTER_HOME` (first contact), then a second agent there (cached).
 */
async function readyRound(
  options: PeerRowsOptions,
  launches: readonly StdioLaunch[],
  offset: number,
): Promise<ClientSamples[]> {
  const peers = options.peers.filter((p) => p.targets.includes('stdio'));
  const raw: number[] = [];
  const auto: number[] = [];
  const peerMs = peers.map((): number[] => []);
  const first: number[] = [];
  const cached: number[] = [];
  let era = '?';
  const previousHome = process.env.MUSTER_HOME;
  try {
    for (let r = 0; r < options.readyRepetitions; r++) {
      const steps: (() => Promise<void>)[] = [
        async () => void raw.push(await rawReady(launches, 'legacy', 1)),
        async () => void auto.push(await rawReady(launches, 'auto', 1)),
        ...peers.map((p, i) => async () => void peerMs[i]!.push(await peerReady(p, launches))),
        async () => {
          const home = mkdtempSync(join(tmpdir(), 'muster-bench-home-'));
          try {
            process.env.MUSTER_HOME = home;
            const a = await musterReady(launches, 1);
            first.push(a.ms);
            era = a.era;
            await settledChildren();
            options.collect();
            cached.push((await musterReady(launches, 1)).ms);
          } finally {
            rmSync(home, { recursive: true, force: true });
          }
        },
      ];
      for (let i = 0; i < steps.length; i++) {
        // a client whose close does not wait for its servers to exit (the AI SDK's) would
        // leave ten processes shutting down on the CPUs the next client starts its own on
        await settledChildren();
        options.collect();
        await steps[(offset + r + i) % steps.length]!();
      }
    }
  } finally {
    if (previousHome === undefined) delete process.env.MUSTER_HOME;
    else process.env.MUSTER_HOME = previousHome;
  }
  return [
    {
      label: 'raw clients, default (legacy), in parallel',
      kind: 'raw',
      era: 'legacy',
      samples: raw,
    },
    { label: 'raw clients, auto, in parallel', kind: 'raw-auto', era: 'auto', samples: auto },
    ...peers.map(
      (p, i): ClientSamples => ({
        label: `peer: ${p.short}, in parallel`,
        kind: 'peer',
        era: 'legacy',
        samples: peerMs[i]!,
      }),
    ),
    { label: 'muster initialize(), first contact', kind: 'muster-first', era, samples: first },
    { label: 'muster initialize(), cached verdicts', kind: 'muster-cached', era, samples: cached },
  ];
}

/**
 * The peer rows of `npm run bench:peers`, in rounds: every round measures every row once
 * (echo over stdio, echo over Streamable HTTP, ten stdio servers ready, a 1 MiB result), with
 * new clients, agents and server processes, and the samples of all rounds are pooled per
 * client. The echo and 1 MiB rows use {@link compareCalls} (sequential calls, round-robin).
 */
export async function measurePeerRows(options: PeerRowsOptions): Promise<PeerRows> {
  const batch = options.batch ?? 8;
  const servers = options.servers ?? 10;
  const collect = { collect: options.collect, collectEvery: 10 };
  const echo = {
    ...ECHO,
    hostInput: echoInput,
    batch,
    variants: ['sequential'] as const,
    ...collect,
  } satisfies Partial<CallCaseSpec>;
  const basic = options.wrap(stdioConfig('basic-server.mjs'));
  const bigServer = options.wrap(stdioConfig('big-result-server.mjs'));
  const launches = Array.from({ length: servers }, (_, i) =>
    options.spread(stdioConfig('basic-server.mjs', [`--name=s${i}`])),
  );
  let stdio: ClientSamples[] | undefined;
  let http: ClientSamples[] | undefined;
  let ready: ClientSamples[] | undefined;
  let big: ClientSamples[] | undefined;
  const roundSeconds: Record<RowName, number>[] = [];
  for (let round = 0; round < options.rounds; round++) {
    let mark = performance.now();
    const lap = () => {
      const now = performance.now();
      const seconds = (now - mark) / 1000;
      mark = now;
      return seconds;
    };
    options.collect();
    const s = await compareCalls({
      ...echo,
      ...options.stdio,
      epochs: 1,
      label: 'stdio',
      baselines: stdioBaselines(basic, ECHO, options.peers),
      server: basic,
      checkContent: (c) => c === 'default: hello',
    });
    stdio = pool(stdio, callClients(s, options.peers));
    const stdioSeconds = lap();

    options.collect();
    const server = await startHttpServer(options.wrap);
    try {
      const url = new URL(server.url);
      const h = await compareCalls({
        ...echo,
        ...options.http,
        epochs: 1,
        label: 'http',
        baselines: [
          rawBaseline('legacy', ECHO, () => new StreamableHTTPClientTransport(url)),
          rawBaseline('auto', ECHO, () => new StreamableHTTPClientTransport(url)),
          ...peerBaselines(options.peers, ECHO, 'http', async () => ({
            target: { kind: 'http', url: server.url },
            close: async () => undefined,
          })),
        ],
        server: { type: 'http', url: server.url },
        checkContent: (c) => c === 'hello',
      });
      http = pool(http, callClients(h, options.peers));
    } finally {
      await server.close();
    }
    const httpSeconds = lap();

    ready = pool(ready, await readyRound(options, launches, round));
    const readySeconds = lap();

    options.collect();
    const b = await compareCalls({
      ...BIG,
      ...options.big,
      ...collect,
      epochs: 1,
      label: 'big',
      baselines: stdioBaselines(bigServer, BIG, options.peers),
      server: bigServer,
      hostInput: z.object({ kib: z.number() }),
      batch: 1,
      variants: ['sequential'],
      checkContent: (c) => c.includes('[archived: ref='),
    });
    big = pool(big, callClients(b, options.peers, 1e-3));
    const seconds = { stdio: stdioSeconds, http: httpSeconds, ready: readySeconds, big: lap() };
    roundSeconds.push(seconds);
    options.onRound?.(round, seconds);
  }
  return {
    stdio: {
      title: 'echo over stdio (basic-server.mjs), sequential calls',
      unit: 'µs',
      clients: stdio!,
    },
    http: {
      title: 'echo over Streamable HTTP (dual fixture, own process), sequential calls',
      unit: 'µs',
      clients: http!,
    },
    ready: {
      title: `${servers} stdio servers ready (connect + list tools)`,
      unit: 'ms',
      clients: ready!,
    },
    big: { title: 'a 1 MiB result over stdio (big-result-server.mjs)', unit: 'ms', clients: big! },
    rounds: options.rounds,
    roundSeconds,
  };
}
