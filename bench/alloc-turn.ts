/**
 * Bytes allocated per agent tool turn and per direct call, for docs/performance.md: one
 * process connects an agent to `basic-server.mjs` over stdio (or the dual Streamable HTTP
 * fixture with `PROFILE_HTTP=1`), warms up, then runs the V8 sampling heap profiler (every
 * object kept, collected or not) over `runs` runs of eight (`ALLOC_CALLS`) one-call turns (`agent.run()`, a
 * scripted model asking for the echo tool, each session deleted after), and separately over
 * as many direct calls (`agent.mcp.callTool`) and as many calls of the raw official client
 * (its default, legacy; `auto` over HTTP, the era Muster speaks there). Every sample is counted for the nearest frame of
 * Muster's own code (`dist/`), else for the official client (with Zod), else for the rest
 * (Node, the bench's model).
 *
 *   npx tsx bench/alloc-turn.ts [runs] [top]          # default 250 runs (2,000 turns), top 40
 *   PROFILE_HTTP=1 npx tsx bench/alloc-turn.ts
 *   ALLOC_CALLS=1 npx tsx bench/alloc-turn.ts 2000   # runs of one turn (default eight)
 *
 * Measures `dist/` (run `npm run build` first). The profiler samples on average every 128
 * bytes, so figures move by about 1 % between runs of the same code.
 */
import { Session } from 'node:inspector/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import { playRun, runScript, ScriptedRunModel } from './mcp-model.js';
import { bytesBy, distFrame } from './heap-profile.js';
import type { HeapFrame, HeapProfile } from './heap-profile.js';
import { muster } from './muster.js';
import { startHttpServer } from './peers-rows.js';

const CALLS = Number(process.env.ALLOC_CALLS ?? 8);
const RUNS = Number(process.argv[2] ?? 250);
const TOP = Number(process.argv[3] ?? 40);
const http = process.env.PROFILE_HTTP === '1';

const CLIENT = 'official client';
const OTHER = 'other (Node, the bench)';

/** Where one sample's bytes go: Muster's nearest function, or a whole area. */
function attribute(stack: readonly HeapFrame[]): string {
  for (let i = stack.length - 1; i >= 0; i--) {
    const { url } = stack[i]!;
    if (url.includes('/node_modules/')) {
      if (url.includes('/@modelcontextprotocol/') || url.includes('/zod/')) return CLIENT;
      continue;
    }
    if (url.includes('/bench/')) return OTHER;
    if (url.includes('/dist/')) return distFrame(stack[i]!);
  }
  return OTHER;
}

/** Bytes per attribution key. */
function tally(profile: HeapProfile): Map<string, number> {
  return bytesBy(profile, attribute);
}

const server = http ? await startHttpServer((launch) => launch) : undefined;
const model = new ScriptedRunModel();
const agent = muster.createAgent({
  model,
  mcp: { strictConfig: true },
  mcpServers: {
    echo: server ? { type: 'http', url: server.url } : stdioConfig('basic-server.mjs'),
  },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  limits: { maxIterations: CALLS + 1 },
});
const raw = new Client(
  { name: 'muster-bench-raw', version: '0.0.0' },
  server ? { versionNegotiation: { mode: 'auto' } } : {},
);
try {
  await raw.connect(
    server
      ? new StreamableHTTPClientTransport(new URL(server.url))
      : new StdioClientTransport(stdioConfig('basic-server.mjs')),
  );
  await agent.initialize();
  const echo = agent.mcp.list()[0]?.tools.find((t) => t.originalName === 'echo')?.name;
  if (echo === undefined) throw new Error('alloc-turn: the echo tool is not listed');
  const turns = runScript({ name: echo, argumentsText: '{"text":"hello"}' }, CALLS, 1);
  const run = (): Promise<void> => playRun(agent, model, turns, 'alloc-turn');
  const direct = async (): Promise<void> => {
    for (let i = 0; i < CALLS; i++) await agent.mcp.callTool('echo', 'echo', { text: 'hello' });
  };
  const rawCalls = async (): Promise<void> => {
    for (let i = 0; i < CALLS; i++)
      await raw.callTool({ name: 'echo', arguments: { text: 'hello' } });
  };
  for (let i = 0; i < Math.max(30, RUNS / 5); i++) {
    await run();
    await direct();
    await rawCalls();
  }
  const session = new Session();
  session.connect();
  const measure = async (work: () => Promise<void>): Promise<Map<string, number>> => {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 128,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    for (let i = 0; i < RUNS; i++) await work();
    const { profile } = await session.post('HeapProfiler.stopSampling');
    return tally(profile as unknown as HeapProfile);
  };
  const turn = await measure(run);
  const call = await measure(direct);
  const baseline = await measure(rawCalls);
  session.disconnect();
  const calls = RUNS * CALLS;
  const kb = (bytes: number) => (bytes / 1024 / calls).toFixed(2).padStart(7);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const ownBytes = (m: Map<string, number>) =>
    [...m].filter(([k]) => k !== CLIENT && k !== OTHER).reduce((a, [, b]) => a + b, 0);
  process.stdout.write(
    `${http ? 'Streamable HTTP' : 'stdio'}; ${RUNS} runs of ${CALLS} turns, and as many direct calls; KB per call\n` +
      `               turn  direct     raw\n` +
      `all         ${kb(sum(turn))} ${kb(sum(call))} ${kb(sum(baseline))}\n` +
      `Muster      ${kb(ownBytes(turn))} ${kb(ownBytes(call))}\n` +
      `client      ${kb(turn.get(CLIENT) ?? 0)} ${kb(call.get(CLIENT) ?? 0)} ${kb(baseline.get(CLIENT) ?? 0)}\n` +
      `other       ${kb(turn.get(OTHER) ?? 0)} ${kb(call.get(OTHER) ?? 0)} ${kb(baseline.get(OTHER) ?? 0)}\n` +
      `\nMuster's functions in a turn (bytes per turn; the direct call's beside it)\n`,
  );
  const rows = [...turn]
    .filter(([k]) => k !== CLIENT && k !== OTHER)
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP);
  for (const [key, bytes] of rows)
    process.stdout.write(
      `${(bytes / calls).toFixed(0).padStart(6)} ${((call.get(key) ?? 0) / calls).toFixed(0).padStart(6)}  ${key}\n`,
    );
} finally {
  await raw.close();
  await agent.close();
  await server?.close();
}
