/**
 * Bytes allocated and CPU time per run of an agent over many tools, for docs/performance.md
 * ("tenth look"): one process connects an agent to `many-tools-server.mjs --tools=<tools>`
 * over stdio, warms up, then runs the V8 sampling heap profiler (every object kept, collected
 * or not) over 1,000 runs of one text answer (no tool call; each session deleted after), and
 * times 10 blocks of 200 more. Prints KB and µs of CPU per run, and the Muster functions that
 * allocate the most (the nearest frame of `dist/`).
 *
 *   npx tsx bench/alloc-run.ts [tools] [top]      # default 100 tools, top 15
 *
 * Measures `dist/` (run `npm run build` first).
 */
import { Session } from 'node:inspector/promises';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import type { ModelClient, ModelPart } from '../src/index.js';
import { bytesBy, distFrame } from './heap-profile.js';
import type { HeapFrame, HeapProfile } from './heap-profile.js';
import { muster } from './muster.js';

const TOOLS = Number(process.argv[2] ?? 100);
const TOP = Number(process.argv[3] ?? 15);
const RUNS = 1000;

const ANSWER: readonly ModelPart[] = [
  { type: 'text-delta', text: 'Done.' },
  {
    type: 'finish',
    stopReason: 'stop',
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  },
];
async function* answer(): AsyncIterable<ModelPart> {
  yield* ANSWER;
}
const model: ModelClient = {
  specificationVersion: 'muster-model-v1',
  provider: 'bench',
  defaultModelName: 'bench',
  generate: answer,
};

/** The nearest Muster function of a sample (else `other`). */
function nearestMuster(stack: readonly HeapFrame[]): string {
  for (let i = stack.length - 1; i >= 0; i--) {
    const { url } = stack[i]!;
    if (url.includes('/node_modules/')) continue;
    if (url.includes('/dist/')) return distFrame(stack[i]!);
  }
  return 'other (Node, the client, the bench)';
}

const agent = muster.createAgent({
  model,
  mcp: { strictConfig: true },
  mcpServers: { many: stdioConfig('many-tools-server.mjs', [`--tools=${TOOLS}`]) },
  policy: { allow: ['mcp_connect:*', 'mcp__*'] },
});
try {
  await agent.initialize();
  const run = async (): Promise<void> => {
    let sessionId = '';
    for await (const ev of agent.run({ input: 'bench', stream: false })) {
      if (ev.type === 'session.started') sessionId = ev.sessionId;
      if (ev.type === 'session.failed') throw new Error(`alloc-run: ${ev.error.message}`);
    }
    await agent.sessions.delete(sessionId);
  };
  for (let i = 0; i < 500; i++) await run();
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 128,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < RUNS; i++) await run();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const bytes = bytesBy(profile as unknown as HeapProfile, nearestMuster);
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  const cpu: number[] = [];
  for (let b = 0; b < 10; b++) {
    const start = process.cpuUsage();
    for (let i = 0; i < 200; i++) await run();
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 200);
  }
  cpu.sort((a, b) => a - b);
  process.stdout.write(
    `${TOOLS} tools: ${(total / RUNS / 1024).toFixed(1)} KB per run, ` +
      `${cpu[5]!.toFixed(0)} µs of CPU per run (median of 10 blocks of 200)\n`,
  );
  for (const [key, b] of [...bytes].sort((x, y) => y[1] - x[1]).slice(0, TOP))
    process.stdout.write(`${(b / RUNS).toFixed(0).padStart(7)}  ${key}\n`);
} finally {
  await agent.close();
}
