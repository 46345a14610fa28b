/**
 * One measurement process of `bench/upstream-gain.ts` (started by it, not meant to be run by
 * hand): sequential `echo` calls over stdio to `basic-server.mjs`, each timed (wall clock,
 * and this process's CPU time from `process.cpuUsage()`).
 *
 * Every variant named in `MUSTER_UPSTREAM_LABELS` (JSON array of tags of the resolve hook)
 * is loaded as its own module graph (`echo-variant.mjs?upstream=<tag>`: its own Muster dist/
 * and its own copy of the official client), and gives two callers: the raw client
 * (`callTool`) and Muster's direct call (`agent.mcp.callTool`, `mcp.protocol.mode: legacy`).
 * With `MUSTER_UPSTREAM_PEER=1`, the AI SDK's MCP client (bench/peers) is a caller too. Each
 * caller has its own server process. After `MUSTER_UPSTREAM_WARMUP` untimed calls each,
 * `MUSTER_UPSTREAM_BLOCKS` blocks run every caller for `MUSTER_UPSTREAM_SETTLE` untimed and
 * then `MUSTER_UPSTREAM_CALLS / blocks` timed calls, in an order rotated per block: the
 * variants take turns within one process, so the machine's noise hits them alike. `MUSTER_UPSTREAM_SERVER_CPU` pins the servers
 * (`taskset`). Prints one JSON line: {@link ChildReport}.
 */
import { isDeepStrictEqual } from 'node:util';
import { stdioConfig, type StdioLaunch } from '../../test/support/mcp-fixtures.js';
import { loadPeers } from '../peers.js';
import type * as EchoVariant from './echo-variant.mjs';

/** One block of calls of one caller. */
export interface BlockReport {
  /** Wall time of each call, µs. */
  readonly wallUs: readonly number[];
  /** This process's CPU time (user + system, all its threads) during each call, µs. */
  readonly cpuUs: readonly number[];
}

/** What a measurement process prints (one JSON line). */
export interface ChildReport {
  /** Per variant tag, where `@modelcontextprotocol/client` resolved in its graph. */
  readonly clients: Readonly<Record<string, string>>;
  /** Per caller (`<tag>/raw`, `<tag>/muster`, `ai-sdk`), its blocks in order. */
  readonly callers: Readonly<Record<string, readonly BlockReport[]>>;
}

interface Caller {
  readonly name: string;
  call(): Promise<unknown>;
  close(): Promise<unknown>;
}

/** What `basic-server.mjs` answers to `echo {text: 'hello'}`. */
const ECHO_CONTENT = [{ type: 'text', text: 'default: hello' }];
const VARIANT = new URL('./echo-variant.mjs', import.meta.url).href;

function setting(name: string, fallback: number): number {
  const value = Number(process.env[`MUSTER_UPSTREAM_${name}`] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`echo-child: bad ${name}`);
  return value;
}

function launch(): StdioLaunch {
  const plain = stdioConfig('basic-server.mjs');
  const cpu = process.env.MUSTER_UPSTREAM_SERVER_CPU;
  if (cpu === undefined || cpu === '') return plain;
  return { command: 'taskset', args: ['-c', cpu, plain.command, ...plain.args] };
}

/** Fails unless a call's answer is the echo's content (so a patch that breaks it shows). */
function checkEcho(who: string, result: unknown): void {
  const content = (result as { content?: unknown } | undefined)?.content;
  if (!isDeepStrictEqual(content, ECHO_CONTENT)) {
    throw new Error(`echo-child: ${who} answered ${JSON.stringify(result)}`);
  }
}

async function openVariant(
  tag: string,
  server: StdioLaunch,
): Promise<{ clientURL: string; callers: Promise<Caller>[] }> {
  const variant = (await import(
    `${VARIANT}?upstream=${encodeURIComponent(tag)}`
  )) as typeof EchoVariant;
  const open = async (kind: 'raw' | 'muster'): Promise<Caller> => {
    const opened = await (kind === 'raw' ? variant.openRaw : variant.openMuster)(server);
    const name = `${tag}/${kind}`;
    checkEcho(name, await opened.call());
    return { name, call: opened.call, close: opened.close };
  };
  // the servers start while the next variant loads
  return { clientURL: variant.clientURL, callers: [open('raw'), open('muster')] };
}

async function openPeer(server: StdioLaunch): Promise<Caller> {
  const peer = (await loadPeers())?.[0];
  if (!peer) throw new Error('echo-child: peers not installed (npm --prefix bench/peers ci)');
  const endpoint = await peer.open({ kind: 'stdio', ...server }, 'echo', { text: 'hello' });
  return { name: 'ai-sdk', call: () => endpoint.call(), close: () => endpoint.close() };
}

async function main(): Promise<void> {
  const calls = setting('CALLS', 300);
  const warmup = setting('WARMUP', 300);
  const blocks = setting('BLOCKS', 3);
  const settle = setting('SETTLE', 10);
  const tags = JSON.parse(process.env.MUSTER_UPSTREAM_LABELS ?? '[]') as string[];
  const server = launch();
  const clients: Record<string, string> = {};
  const opening: Promise<Caller>[] = [];
  for (const tag of tags) {
    const opened = await openVariant(tag, server);
    clients[tag] = opened.clientURL;
    opening.push(...opened.callers);
  }
  if (process.env.MUSTER_UPSTREAM_PEER === '1') opening.push(openPeer(server));
  const callers = await Promise.all(opening);
  for (const caller of callers) for (let i = 0; i < warmup; i++) await caller.call();
  const reports = new Map<string, BlockReport[]>(callers.map((c) => [c.name, []]));
  const perBlock = Math.max(1, Math.round(calls / blocks));
  for (let block = 0; block < blocks; block++) {
    // rotate the order, so that no caller always follows the same one
    const shift = (block * 5) % callers.length;
    const order = callers.map((_, i) => callers[(i + shift) % callers.length] as Caller);
    for (const caller of order) {
      // untimed first calls: the caches the other callers' turns cooled warm up again
      for (let i = 0; i < settle; i++) await caller.call();
      const wallUs: number[] = [];
      const cpuUs: number[] = [];
      // one clock and one CPU reading between two calls: each call's figures include one
      // reading of each (the same for every caller)
      let cpuBefore = process.cpuUsage();
      let before = performance.now();
      for (let i = 0; i < perBlock; i++) {
        await caller.call();
        const now = performance.now();
        const cpu = process.cpuUsage();
        wallUs.push(Math.round((now - before) * 10000) / 10);
        cpuUs.push(cpu.user - cpuBefore.user + (cpu.system - cpuBefore.system));
        before = now;
        cpuBefore = cpu;
      }
      reports.get(caller.name)?.push({ wallUs, cpuUs });
    }
  }
  for (const caller of callers) await caller.close();
  const report: ChildReport = { clients, callers: Object.fromEntries(reports) };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

await main();
