/**
 * The echo call by its position in a sample of eight, for docs/performance.md ("The turn,
 * call by call"): Muster's agent tool turn (`tool.completed.durationMs`), the raw official
 * client and Muster's direct call (`agent.mcp.callTool`), the three taking turns, sample by
 * sample, in one process. Prints the median of each position per client.
 *
 *   npx tsx bench/call-positions.ts [samples]          # stdio, basic-server.mjs
 *   POSITIONS_HTTP=1 npx tsx bench/call-positions.ts   # Streamable HTTP, raw client in auto
 *   POSITIONS_GC=1 npx tsx bench/call-positions.ts     # a full GC before every sample
 *
 * With pinning (see cpu-pinning.ts) this process runs on one CPU and the server on another.
 * Default 150 samples after 50 untimed ones; measures `dist/` (run `npm run build` first).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { pinCpus } from './cpu-pinning.js';
import { forcedGc } from './gc.js';
import { runScript, ScriptedRunModel } from './mcp-model.js';
import { muster } from './muster.js';
import { startHttpServer } from './peers-rows.js';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import type { McpServerConfig } from '../src/index.js';

const CALLS = 8;
const SAMPLES = Number(process.argv[2] ?? 150);
const WARMUP = 50;

const pin = pinCpus();
const gc = process.env.POSITIONS_GC === '1' ? forcedGc().collect : () => undefined;
const http = process.env.POSITIONS_HTTP === '1' ? await startHttpServer(pin.wrap) : undefined;
const stdio = pin.wrap(stdioConfig('basic-server.mjs'));
const server: McpServerConfig = http ? { type: 'http', url: http.url } : stdio;

const model = new ScriptedRunModel();
const agent = muster.createAgent({
  model,
  mcp: { strictConfig: true },
  mcpServers: { echo: server },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  limits: { maxIterations: CALLS + 1 },
});
const raw = new Client(
  { name: 'muster-bench-raw', version: '0.0.0' },
  http ? { versionNegotiation: { mode: 'auto' } } : undefined,
);
try {
  await agent.initialize();
  await raw.connect(
    http ? new StreamableHTTPClientTransport(new URL(http.url)) : new StdioClientTransport(stdio),
  );
  const echo = agent.mcp.list()[0]?.tools.find((t) => t.originalName === 'echo')?.name;
  if (echo === undefined) throw new Error('call-positions: the echo tool is not listed');
  const turns = runScript({ name: echo, argumentsText: '{"text":"hello"}' }, CALLS, 1);
  const at = (): number[][] => Array.from({ length: CALLS }, () => []);
  const clients = [
    {
      label: 'agent tool turn',
      us: at(),
      async sample(record: boolean) {
        model.use(turns);
        let sessionId = '';
        let i = 0;
        for await (const ev of agent.run({ input: 'bench', stream: false })) {
          if (ev.type === 'session.started') sessionId = ev.sessionId;
          if (ev.type !== 'tool.completed') continue;
          if (ev.isError) throw new Error(`call-positions: the call failed: ${ev.content}`);
          if (record) this.us[i]!.push(ev.durationMs * 1000);
          i++;
        }
        await agent.sessions.delete(sessionId);
      },
    },
    ...(
      [
        ['raw client', () => raw.callTool({ name: 'echo', arguments: { text: 'hello' } })],
        ['Muster direct', () => agent.mcp.callTool('echo', 'echo', { text: 'hello' })],
      ] as const
    ).map(([label, call]) => ({
      label,
      us: at(),
      async sample(record: boolean) {
        for (let i = 0; i < CALLS; i++) {
          const start = performance.now();
          await call();
          if (record) this.us[i]!.push((performance.now() - start) * 1000);
        }
      },
    })),
  ];
  for (let s = 0; s < WARMUP + SAMPLES; s++) {
    for (const client of clients) {
      gc();
      await client.sample(s >= WARMUP);
    }
  }
  const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  process.stdout.write(
    `${pin.text}; ${http ? 'Streamable HTTP' : 'stdio'}; ` +
      `${process.env.POSITIONS_GC === '1' ? 'a full GC before every sample' : 'no forced GC'}; ` +
      `${SAMPLES} samples; median µs by call position\n`,
  );
  process.stdout.write(`call  ${clients.map((c) => c.label.padStart(16)).join('')}\n`);
  for (let i = 0; i < CALLS; i++)
    process.stdout.write(
      `${String(i + 1).padStart(4)}  ${clients.map((c) => median(c.us[i]!).toFixed(0).padStart(16)).join('')}\n`,
    );
} finally {
  await Promise.allSettled([agent.close(), raw.close()]);
  await http?.close();
}
