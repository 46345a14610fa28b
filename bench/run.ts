/**
 * Muster micro-benchmarks: the agent loop's own cost per model turn, the tool-call pipeline's
 * cost per call, a schema pattern under RE2 and under RegExp, the context manager's cost per model request, the heap held by idle sessions, import time, and MCP against the raw official
 * client (per call over stdio, HTTP and in process, ten servers ready, a 1 MiB result), and the
 * bytes of tool definitions sent per turn with and without tool search (2,000 tools, 10 servers),
 * and the durable stores' step commit beside a one-row INSERT (PostgreSQL from DATABASE_URL),
 * and the worker fleet's short runs beside pg-boss alone and one process (DATABASE_URL).
 * Prints to stdout only. The peer MCP clients (AI SDK, OpenAI Agents) are measured when
 * installed: `npm --prefix bench/peers ci`; `npm run bench:peers` runs only the rows against
 * them, in rounds, with the servers on their own CPU (bench/peers-run.ts).
 *
 *   npm run bench                    (BENCH_SCALE=0.2 for a quick pass; measures dist/)
 *   BENCH_SOURCE=src npx tsx bench/run.ts   (the sources, through tsx's transform)
 *   npx tsx --expose-gc bench/run.ts (uses global.gc; otherwise gc is enabled at run time)
 */
import { availableParallelism, cpus } from 'node:os';
import { measureContextManager } from './context-manager.js';
import { forcedGc } from './gc.js';
import { measureIdleSessions } from './idle-sessions.js';
import { measureCreateAgentWithMcp, measureImportTime } from './import-time.js';
import { measureLoopOverhead } from './loop-overhead.js';
import { BENCH_SOURCE } from './muster.js';
import { measureMcp, peersNote } from './mcp-bench.js';
import { formatMcpReport, mcpSummary } from './mcp-report.js';
import type { TargetLine } from './mcp-report.js';
import type { LoopOverheadResult } from './loop-overhead.js';
import { measurePipelineOverhead } from './pipeline-overhead.js';
import { loadPeers, PEERS_INSTALL_HINT } from './peers.js';
import { measureSessionStores } from './session-stores.js';
import { measureStepCommit } from './step-commit.js';
import { measureWorkerFleet } from './worker-fleet.js';
import { measureSchemaPatterns, PATTERN_INPUT_CHARS } from './schema-patterns.js';
import { formatTable } from './stats.js';
import { formatToolSearchBytes, measureToolSearchBytes } from './tool-search-bytes.js';
import type { Row } from './stats.js';

const LOOP_TARGET_MS = 0.2;
const IDLE_SESSIONS = 1_000;
const IDLE_TARGET_MB = 100;
/** `createAgent` with MCP options must not block longer than this (issue 13). */
const CREATE_AGENT_TARGET_MS = 1;
/** Tools of the catalog fixture. */
const CATALOG_TOOLS = 500;
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
    `muster bench: node ${process.version}, ${availableParallelism()} cpu (${cpus()[0]?.model ?? '?'}), gc ${gc.source}, scale ${scale}, measuring ${BENCH_SOURCE === 'dist' ? 'the built package (dist/)' : 'the sources through tsx (BENCH_SOURCE=src)'}`,
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
  const patterns = await measureSchemaPatterns({
    warmup: n(200),
    batchSize: 20,
    samples: n(200),
  });
  print();
  print(
    formatTable(
      `2a. schema pattern on a ${PATTERN_INPUT_CHARS.toLocaleString('en')}-character string (µs per validation)`,
      patterns.map(
        (c): Row => ({
          label: `${c.label} ${c.engine === 're2' ? 'RE2 (server schemas)' : 'RegExp (host schemas)'}`,
          unit: 'µs/val',
          summary: c.perValidationUs,
        }),
      ),
      1,
    ),
  );
  for (let i = 0; i + 1 < patterns.length; i += 2) {
    const [native, re2] = [patterns[i]!, patterns[i + 1]!];
    print(
      `   ${native.label}: RE2 ${(re2.perValidationUs.median / native.perValidationUs.median).toFixed(1)}x the time of RegExp`,
    );
  }

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
  const targets: TargetLine[] = [];
  print();
  if (imports) {
    print(
      `4. import('muster-agent') from dist: median ${imports.importMs.median.toFixed(1)} ms (p90 ${imports.importMs.p90.toFixed(1)}), target <= 80 ms; createAgent(): ${(imports.createAgentMs.median * 1000).toFixed(0)} µs, no I/O`,
    );
    // createAgent with MCP options (issue 13): the first call of each fresh process
    const create = measureCreateAgentWithMcp(n(10));
    if (create) {
      const firstMs = create.firstMs.median;
      const met = firstMs < CREATE_AGENT_TARGET_MS;
      const text = `first createAgent() with MCP options: ${firstMs.toFixed(3)} ms (p90 ${create.firstMs.p90.toFixed(3)}; later calls ${create.medianMs.median.toFixed(3)} ms), target < ${CREATE_AGENT_TARGET_MS} ms: ${met ? 'met' : 'NOT MET'}`;
      targets.push({ name: 'createAgent', met, text });
      print(`   target ${text}`);
    }
  } else {
    print('4. import time: skipped, no dist/ (run npm run build first)');
  }

  const peers = await loadPeers();
  if (!peers) {
    print();
    print(PEERS_INSTALL_HINT);
  }

  gc.collect();
  const mcp = await measureMcp({
    // sequential samples are 8 calls each, timed one by one (560 per-call samples at scale 1)
    stdio: { warmupSamples: 5, samples: n(70), epochs: 4 },
    http: { warmupSamples: 3, samples: n(24), epochs: 2 },
    sdk: { warmupSamples: 30, samples: n(200) },
    big: { warmupSamples: 3, samples: n(16), epochs: 2 },
    startup: { servers: 10, repetitions: 3 },
    catalog: { tools: CATALOG_TOOLS, repetitions: Math.max(3, Math.round(5 * scale)) },
    collect: gc.collect,
    ...(peers ? { peers } : {}),
  });
  const report = formatMcpReport(mcp);
  targets.push(...report.targets);
  print();
  print(report.text);
  const note = peersNote(mcp);
  if (note) print(`   ${note}`);

  gc.collect();
  const stores = await measureSessionStores(scale > 0 ? scale : 1, gc);
  print();
  print('11. session stores');
  for (const line of stores.lines) print(line);

  gc.collect();
  const stepCommit = await measureStepCommit(scale > 0 ? scale : 1);
  targets.push(...stepCommit.targets);
  print();
  print('11a. step commit against a one-row INSERT');
  for (const line of stepCommit.lines) print(line);

  gc.collect();
  const fleet = await measureWorkerFleet(scale > 0 ? scale : 1);
  targets.push(...fleet.targets);
  print();
  print('11b. worker fleet against pg-boss alone and one process');
  for (const line of fleet.lines) print(line);

  gc.collect();
  const toolSearch = await measureToolSearchBytes();
  print();
  for (const line of formatToolSearchBytes(toolSearch)) print(line);

  const headline = loop.find((r) => r.config.stream && r.config.turns === 10)!;
  const loopMet = headline.overheadPerTurnMs.median <= LOOP_TARGET_MS;
  targets.unshift({
    name: 'loop overhead',
    met: loopMet,
    text: `loop overhead ${headline.overheadPerTurnMs.median.toFixed(3)} ms/turn, target <= ${LOOP_TARGET_MS} ms: ${loopMet ? 'met' : 'NOT MET'}`,
  });
  const peakRssMb = (process.resourceUsage().maxRSS * 1024) / MB;
  print();
  print(
    `peak RSS of the bench process: ${peakRssMb.toFixed(1)} MB (server processes not included)`,
  );
  print();
  print(`targets (${targets.filter((t) => t.met).length} of ${targets.length} met):`);
  for (const t of targets) print(`   ${t.met ? 'met    ' : 'NOT MET'}  ${t.text}`);
  print();
  print(`bench finished in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  print(
    `bench: loop overhead ${headline.overheadPerTurnMs.median.toFixed(3)} ms/turn (target <= ${LOOP_TARGET_MS}), pipeline overhead ${pipeline.allowOverheadUs.toFixed(1)} µs/call, context manager ${context.cases[0]!.perRequestUs.median.toFixed(1)} µs/request (truncating ${context.cases[2]!.perRequestUs.median.toFixed(1)}), ${IDLE_SESSIONS} idle sessions ${(idle.heapDeltaBytes / MB).toFixed(1)} MB (target <= ${IDLE_TARGET_MB}), ${mcpSummary(mcp)}, peak RSS ${peakRssMb.toFixed(0)} MB, ${stores.summary}, ${stepCommit.summary}, ${fleet.summary}, tool search first request ${(toolSearch.withSearch[0]! / 1024).toFixed(1)} KB vs ${(toolSearch.withoutSearch[0]! / 1024).toFixed(0)} KB`,
  );
}

await main();
