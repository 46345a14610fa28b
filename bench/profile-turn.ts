/**
 * Where an agent tool turn spends more than a direct call, for docs/performance.md ("Other
 * clients between turns"): one process runs an agent's eight-turn runs (`agent.run()`, a
 * scripted model asking for the echo tool) and eight direct calls of the same agent
 * (`agent.mcp.callTool`) alternately, under the V8 sampling profiler (20 µs); every sample is
 * counted for the caller whose time range holds it, and the turn minus the direct call is
 * printed per call, by area and by function.
 *
 *   npx tsx bench/profile-turn.ts [samples]                    # stdio, basic-server.mjs
 *   PROFILE_HTTP=1 npx tsx bench/profile-turn.ts               # Streamable HTTP, the dual fixture
 *   PROFILE_PEERS=1 PROFILE_HTTP=1 npx tsx bench/profile-turn.ts   # the peers' calls in between
 *   PROFILE_CALLERS=writeUtf8String npx tsx bench/profile-turn.ts  # also who calls that function
 *
 * With pinning (see cpu-pinning.ts) this process runs on one CPU and the server on another.
 * Default 300 samples of each caller after 60 untimed ones; measures `dist/` (run
 * `npm run build` first). The profiler inflates every figure (about 1.5x): compare columns.
 */
import { Session } from 'node:inspector/promises';
import { playRun, runScript, ScriptedRunModel } from './mcp-model.js';
import { muster } from './muster.js';
import { loadPeers } from './peers.js';
import { startHttpServer } from './peers-rows.js';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import { pinCpus } from './cpu-pinning.js';
import type { CpuProfile, ProfileNode } from './cpu-profile.js';

const CALLS = 8;
const SAMPLES = Number(process.argv[2] ?? 300);
const WARMUP = 60;
const http = process.env.PROFILE_HTTP === '1';

const pin = pinCpus();
const server = http ? await startHttpServer(pin.wrap) : undefined;
const stdio = pin.wrap(stdioConfig('basic-server.mjs'));
const model = new ScriptedRunModel();
const agent = muster.createAgent({
  model,
  mcp: { strictConfig: true },
  mcpServers: { echo: server ? { type: 'http', url: server.url } : stdio },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  limits: { maxIterations: CALLS + 1 },
});
const closers: (() => Promise<unknown>)[] = [() => agent.close()];

/** Where a frame's time goes in the table: Muster's chunks, the client, zod, Node, V8. */
function area(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === '') return functionName.startsWith('(') ? functionName : 'native';
  if (url.includes('/zod/')) return 'zod';
  if (url.includes('/@modelcontextprotocol/')) return 'official client';
  if (url.includes('/node_modules/'))
    return `other ${url.slice(url.lastIndexOf('/node_modules/') + 14)}`;
  if (url.includes('/dist/')) return `muster ${url.slice(url.lastIndexOf('/dist/') + 6)}`;
  if (url.startsWith('node:')) return 'Node internals';
  return `other ${url.slice(url.lastIndexOf('/') + 1)}`;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.slice(url.lastIndexOf('/') + 1)}:${lineNumber + 1}`;
}

try {
  await agent.initialize();
  const echo = agent.mcp.list()[0]?.tools.find((t) => t.originalName === 'echo')?.name;
  if (echo === undefined) throw new Error('profile-turn: the echo tool is not listed');
  const turns = runScript({ name: echo, argumentsText: '{"text":"hello"}' }, CALLS, 1);
  const callers = new Map<string, () => Promise<void>>([
    ['turn', () => playRun(agent, model, turns, 'profile-turn')],
    [
      'direct',
      async () => {
        for (let i = 0; i < CALLS; i++) await agent.mcp.callTool('echo', 'echo', { text: 'hello' });
      },
    ],
  ]);
  if (process.env.PROFILE_PEERS === '1') {
    const peers = await loadPeers();
    if (!peers) throw new Error('profile-turn: install the peers (npm --prefix bench/peers ci)');
    for (const peer of peers.filter((p) => p.targets.includes(http ? 'http' : 'stdio'))) {
      const endpoint = await peer.open(
        server ? { kind: 'http', url: server.url } : { kind: 'stdio', ...stdio },
        'echo',
        { text: 'hello' },
      );
      closers.push(() => endpoint.close());
      callers.set(peer.short, async () => {
        for (let i = 0; i < CALLS; i++) await endpoint.call();
      });
    }
  }
  const names = [...callers.keys()];
  for (let s = 0; s < WARMUP; s++) for (const name of names) await callers.get(name)!();

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 20 });
  const ranges: { name: string; from: number; to: number }[] = [];
  const cpu = new Map<string, number>();
  await session.post('Profiler.start');
  for (let s = 0; s < SAMPLES; s++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(s + k) % names.length]!;
      const used = process.cpuUsage();
      // the profile's clock: CLOCK_MONOTONIC in µs, as process.hrtime
      const from = Number(process.hrtime.bigint() / 1000n);
      await callers.get(name)!();
      ranges.push({ name, from, to: Number(process.hrtime.bigint() / 1000n) });
      const spent = process.cpuUsage(used);
      cpu.set(name, (cpu.get(name) ?? 0) + spent.user + spent.system);
    }
  }
  const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
  session.disconnect();

  const calls = SAMPLES * CALLS;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = { turn: new Map<string, number>(), direct: new Map<string, number>() };
  const self = { turn: new Map<string, number>(), direct: new Map<string, number>() };
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const callersOf = { turn: new Map<string, number>(), direct: new Map<string, number>() };
  let at = profile.startTime;
  let r = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const dt = profile.timeDeltas[i + 1] ?? 0;
    while (r < ranges.length && ranges[r]!.to < at) r++;
    const range = ranges[r];
    if (!range || range.from > at || (range.name !== 'turn' && range.name !== 'direct')) return;
    const node = byId.get(id)!;
    const add = (m: Map<string, number>, key: string) => m.set(key, (m.get(key) ?? 0) + dt);
    add(areas[range.name], area(node));
    add(self[range.name], label(node));
    const want = process.env.PROFILE_CALLERS;
    if (want && node.callFrame.functionName === want) {
      const chain: string[] = [];
      let p = parentOf.get(node.id);
      while (p !== undefined && chain.length < 6) {
        chain.push(label(byId.get(p)!));
        p = parentOf.get(p);
      }
      add(callersOf[range.name], chain.join(' <- '));
    }
  });
  const table = (
    title: string,
    turn: Map<string, number>,
    direct: Map<string, number>,
    top: number,
  ) => {
    const rows = [...new Set([...turn.keys(), ...direct.keys()])]
      .map((key) => ({ key, t: (turn.get(key) ?? 0) / calls, d: (direct.get(key) ?? 0) / calls }))
      .sort((a, b) => b.t - b.d - (a.t - a.d))
      .slice(0, top);
    process.stdout.write(
      `\n${title} (µs per call, profiler's clock): turn, direct, turn − direct\n`,
    );
    for (const { key, t, d } of rows)
      process.stdout.write(
        `${t.toFixed(1).padStart(8)} ${d.toFixed(1).padStart(8)} ${(t - d).toFixed(1).padStart(8)}  ${key}\n`,
      );
  };
  process.stdout.write(
    `${pin.text}; ${http ? 'Streamable HTTP' : 'stdio'}; callers in rotation: ${names.join(', ')}; ` +
      `${SAMPLES} samples of ${CALLS} calls\n`,
  );
  for (const name of names)
    process.stdout.write(
      `${name}: ${((cpu.get(name) ?? 0) / calls).toFixed(0)} µs of CPU per call\n`,
    );
  table('by area', areas.turn, areas.direct, 20);
  table('by function (self time)', self.turn, self.direct, 30);
  if (process.env.PROFILE_CALLERS) table('callers', callersOf.turn, callersOf.direct, 25);
} finally {
  await Promise.allSettled(closers.map((close) => close()));
  await server?.close();
}
