/**
 * Muster micro-benchmarks: the agent loop's own cost per model turn, the tool-call pipeline's
 * cost per call, the context manager's cost per model request, the heap held by idle sessions, import time, and MCP against the raw official
 * client (per call over stdio, HTTP and in process, ten servers ready, a 1 MiB result).
 * Prints to stdout only.
 *
 *   npm run bench                    (BENCH_SCALE=0.2 for a quick pass)
 *   npx tsx --expose-gc bench/run.ts (uses global.gc; otherwise gc is enabled at run time)
 */
import { availableParallelism, cpus } from 'node:os';
import { measureContextManager } from './context-manager.js';
import { forcedGc } from './gc.js';
import { measureIdleSessions } from './idle-sessions.js';
import { measureImportTime } from './import-time.js';
import { measureLoopOverhead } from './loop-overhead.js';
import { formatMcpReport, measureMcp, mcpSummary } from './mcp-bench.js';
import type { LoopOverheadResult } from './loop-overhead.js';
import { measurePipelineOverhead } from './pipeline-overhead.js';
import { measureSessionStores } from './session-stores.js';
import { formatTable } from './stats.js';
import type { Row } from './stats.js';

const LOOP_TARGET_MS = 0.2;
const IDLE_SESSIONS = 1_000;
const IDLE_TARGET_MB = 100;
const MB = 1024 * 1024;

const scale = Number(process.env.BENCH_SCALE ?? '1');
const n = (base: number) => Math.max(10, Math.round(base * (scale > 0 ? scale : 1)));

function print(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function loopLabel(r: LoopOverheadResult): string {
  return `${r.config.turns} turn${r.config.turns === 1 ? '' : 's'}, stream: ${r.config.stream}`;
}

/** Runs every benchmark and prints the tables and the summary line. */
async function main(): Promise<void> {
  const started = performance.now();
  const gc = forcedGc();
  print(
    `muster bench: node ${process.version}, ${availableParallelism()} cpu (${cpus()[0]?.model ?? '?'}), gc ${gc.source}, scale ${scale}`,
  );

  gc.collect();
  const loop = await measureLoopOverhead(
    [
      { turns: 10, stream: true },
      { turns: 1, stream: true },
      { turns: 10, stream: false },
      { turns: 1, stream: false },
    ],
    { warmupRuns: n(500), sampleRuns: n(3_000) },
  );
  print();
  print(
    formatTable(
      '1. loop overhead per turn (ms)',
      loop.map(
        (r): Row => ({ label: loopLabel(r), unit: 'ms/turn', summary: r.overheadPerTurnMs }),
      ),
    ),
  );
  print();
  print(
    formatTable(
      '   per run (ms)',
      loop.flatMap((r): Row[] => [
        { label: `agent.run(), ${loopLabel(r)}`, unit: 'ms/run', summary: r.runMs },
        { label: `  bare model + tool body`, unit: 'ms/run', summary: r.baselineMs },
      ]),
    ),
  );
  for (const stream of [true, false]) {
    const ten = loop.find((r) => r.config.stream === stream && r.config.turns === 10)!;
    const one = loop.find((r) => r.config.stream === stream && r.config.turns === 1)!;
    const marginal = (ten.overheadPerRunMs.median - one.overheadPerRunMs.median) / 9;
    print(
      `   stream: ${stream}: fixed cost per run ~${one.overheadPerRunMs.median.toFixed(3)} ms, marginal cost per extra tool turn ~${marginal.toFixed(3)} ms, ${ten.eventsPerRun} events per 10-turn run`,
    );
  }

  gc.collect();
  const pipeline = await measurePipelineOverhead({
    warmupCalls: n(5_000),
    batchSize: 100,
    samples: n(1_000),
  });
  print();
  print(
    formatTable(
      '2. tool call (µs per call)',
      pipeline.cases.map((c): Row => ({ label: c.label, unit: 'µs/call', summary: c.perCallUs })),
      2,
    ),
  );
  print(
    `   pipeline overhead vs direct call: allow ${pipeline.allowOverheadUs.toFixed(1)} µs, with hooks ${pipeline.hooksOverheadUs.toFixed(1)} µs, JSON Schema (ajv) ${pipeline.jsonSchemaOverheadUs.toFixed(1)} µs, AbortSignal.any signal ${pipeline.anySignalOverheadUs.toFixed(1)} µs; ${pipeline.eventsPerCall} events per call`,
  );

  gc.collect();
  const context = await measureContextManager({
    warmupBatches: n(20),
    batchSize: 50,
    samples: n(200),
  });
  print();
  print(
    formatTable(
      `2b. context manager (µs per model request, ${context.messages}-message transcript of ${(context.transcriptBytes / 1024).toFixed(0)} KB)`,
      context.cases.map(
        (c): Row => ({
          label: `${c.label} -> ${c.sentMessages} msgs`,
          unit: 'µs/req',
          summary: c.perRequestUs,
        }),
      ),
      2,
    ),
  );

  gc.collect();
  const idle = await measureIdleSessions(IDLE_SESSIONS, gc);
  print();
  print(`3. idle sessions (heapUsed, gc ${idle.gcSource})`);
  print(
    `   ${idle.sessions} completed one-turn sessions in one MemorySessionStore: ${(idle.heapDeltaBytes / MB).toFixed(2)} MB (${(idle.bytesPerSession / 1024).toFixed(2)} KB/session; ${(idle.heapUsedBefore / MB).toFixed(1)} -> ${(idle.heapUsedAfter / MB).toFixed(1)} MB), target <= ${IDLE_TARGET_MB} MB`,
  );

  const imports = measureImportTime(n(15));
  print();
  if (imports) {
    print(
      `4. import('muster-agent') from dist: median ${imports.importMs.median.toFixed(1)} ms (p90 ${imports.importMs.p90.toFixed(1)}), target <= 80 ms; createAgent(): ${(imports.createAgentMs.median * 1000).toFixed(0)} µs, no I/O`,
    );
  } else {
    print('4. import time: skipped, no dist/ (run npm run build first)');
  }

  gc.collect();
  const mcp = await measureMcp({
    stdio: { warmupSamples: 5, samples: n(160), epochs: 4 },
    http: { warmupSamples: 3, samples: n(40), epochs: 2 },
    sdk: { warmupSamples: 30, samples: n(300) },
    big: { warmupSamples: 3, samples: n(24), epochs: 2 },
    startup: { servers: 10, repetitions: 3 },
    collect: gc.collect,
  });
  print();
  print(formatMcpReport(mcp));

  gc.collect();
  const stores = await measureSessionStores(scale > 0 ? scale : 1, gc);
  print();
  print('6. session stores');
  for (const line of stores.lines) print(line);

  const headline = loop.find((r) => r.config.stream && r.config.turns === 10)!;
  print();
  print(`bench finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  print(
    `bench: loop overhead ${headline.overheadPerTurnMs.median.toFixed(3)} ms/turn (target <= ${LOOP_TARGET_MS}), pipeline overhead ${pipeline.allowOverheadUs.toFixed(1)} µs/call, context manager ${context.cases[0]!.perRequestUs.median.toFixed(1)} µs/request (truncating ${context.cases[2]!.perRequestUs.median.toFixed(1)}), ${IDLE_SESSIONS} idle sessions ${(idle.heapDeltaBytes / MB).toFixed(1)} MB (target <= ${IDLE_TARGET_MB}), ${mcpSummary(mcp)}, ${stores.summary}`,
  );
}

await main();
