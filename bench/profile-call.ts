/**
 * CPU profile of one echo call over stdio (`basic-server.mjs`), for docs/performance.md:
 *
 *   npx tsx bench/profile-call.ts <who> [calls] [out-dir]
 *   PROFILE_HTTP=1 npx tsx bench/profile-call.ts <who> [calls] [out-dir]
 *
 * With `PROFILE_HTTP=1` the call goes over Streamable HTTP to the dual-era fixture of
 * `npm run bench:peers` (`peers-http-server.mjs`) in a process of its own. Either way this
 * process runs on one CPU and the server on another, as in `npm run bench:peers` (`BENCH_PIN=0`
 * turns that off).
 *
 * `who`: `raw-legacy` (the official client, its default), `raw-auto`, `muster` (Muster's
 * `agent.mcp.callTool`, default protocol mode), `muster-legacy` (`mcp.protocol.mode: legacy`),
 * `ai-sdk` (needs `npm --prefix bench/peers ci`). After 1,500 untimed calls, `calls` calls
 * (default 4,000) run one at a time, timed, then as many again under the V8 sampling profiler
 * (50 µs interval); the profile is written to `<out-dir>/<who>.cpuprofile` (default the system
 * temp folder). Wall time and this process's CPU time per call are printed for both passes. Summarize profiles with
 * `npx tsx bench/profile-summary.ts <file>...`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { pinCpus } from './cpu-pinning.js';
import { startHttpServer } from './peers-rows.js';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import { loadPeers } from './peers.js';
import { muster } from './muster.js';

const { createAgent } = muster;

const WHO = ['raw-legacy', 'raw-auto', 'muster', 'muster-legacy', 'ai-sdk'] as const;
type Who = (typeof WHO)[number];

interface Caller {
  call(): Promise<unknown>;
  close(): Promise<unknown>;
}

const pinning = pinCpus();

async function open(who: Who): Promise<Caller> {
  const http = process.env.PROFILE_HTTP === '1' ? await startHttpServer(pinning.wrap) : undefined;
  try {
    return await openOver(who, http);
  } catch (err) {
    await http?.close();
    throw err;
  }
}

async function openOver(
  who: Who,
  http: { url: string; close(): Promise<void> } | undefined,
): Promise<Caller> {
  const launch = pinning.wrap(stdioConfig('basic-server.mjs'));
  const args = { text: 'hello' };
  const withServer = (caller: Caller): Caller => ({
    call: caller.call,
    close: async () => {
      await caller.close();
      await http?.close();
    },
  });
  if (who === 'raw-legacy' || who === 'raw-auto') {
    const client =
      who === 'raw-auto'
        ? new Client({ name: 'profile', version: '0' }, { versionNegotiation: { mode: 'auto' } })
        : new Client({ name: 'profile', version: '0' });
    await client.connect(
      http
        ? new StreamableHTTPClientTransport(new URL(http.url))
        : new StdioClientTransport(launch),
    );
    await client.listTools();
    return withServer({
      call: () => client.callTool({ name: 'echo', arguments: args }),
      close: () => client.close(),
    });
  }
  if (who === 'ai-sdk') {
    const peer = (await loadPeers())?.[0];
    if (!peer) throw new Error('peers not installed: npm --prefix bench/peers ci');
    const endpoint = await peer.open(
      http ? { kind: 'http', url: http.url } : { kind: 'stdio', ...launch },
      'echo',
      args,
    );
    return withServer(endpoint);
  }
  const agent = createAgent({
    mcp: {
      strictConfig: true,
      ...(who === 'muster-legacy' ? { protocol: { mode: 'legacy' } } : {}),
    },
    mcpServers: { b: http ? { type: 'http', url: http.url } : launch },
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  });
  await agent.initialize();
  const status = agent.mcp.list()[0];
  if (status?.status !== 'connected') throw new Error(`not connected: ${status?.status}`);
  return withServer({
    call: () => agent.mcp.callTool('b', 'echo', args),
    close: () => agent.close(),
  });
}

async function main(): Promise<void> {
  const who = (process.argv[2] ?? 'raw-legacy') as Who;
  if (!WHO.includes(who)) throw new Error(`who: one of ${WHO.join(', ')}`);
  const calls = Number(process.argv[3] ?? '4000');
  const out = process.argv[4] ?? tmpdir();
  const caller = await open(who);
  for (let i = 0; i < 1500; i++) await caller.call();
  const per = (us: number) => (us / calls).toFixed(1);
  const timed = async () => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await caller.call();
    const wallUs = (performance.now() - t0) * 1000;
    const cpu = process.cpuUsage(cpu0);
    return `${per(wallUs)} µs/call wall, ${per(cpu.user + cpu.system)} µs/call CPU in this process (user ${per(cpu.user)}, system ${per(cpu.system)})`;
  };
  const plain = await timed();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  const profiled = await timed();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  mkdirSync(out, { recursive: true });
  const file = join(out, `${who}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  process.stdout.write(`${who}: ${plain}; profiled: ${profiled}; ${file}\n`);
  await caller.close();
}

await main();
