// The loop, pipeline and MCP figures of one tree, as one JSON line (`AB {...}`). prepare.sh
// copies this file next to the base commit's own bench files, so both trees of an A/B run
// the same measuring code; run.mjs runs it in each tree in turn and compares.
import process from 'node:process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forcedGc } from './gc.js';
import { measureLoopOverhead } from './loop-overhead.js';
import { measureMcpCalls } from './mcp-calls.js';
import { measurePipelineOverhead } from './pipeline-overhead.js';

const scale = Number(process.env.BENCH_SCALE ?? '1');
const n = (count) => Math.max(10, Math.round(count * (scale > 0 ? scale : 1)));
// loop, pipeline, mcp (the whole MCP section), stdio and big (one comparison alone)
const sections = (process.env.AB_ONLY ?? 'loop,pipeline,mcp').split(',');
const out = {};
const gc = forcedGc();

/**
 * One variant of an MCP comparison. Bench code before the direct/agent split reports one
 * Muster time (`musterUs`) and its ratio; later code reports the direct call, the agent's tool
 * turn and the MCP part of it, with the raw client among the baselines.
 */
function record(key, v) {
  if (v.musterUs) {
    out[`${key}: muster µs/call`] = v.musterUs.median;
    out[`${key}: muster / raw`] = v.ratio;
    return;
  }
  out[`${key}: direct µs/call`] = v.directUs.median;
  out[`${key}: agent tool turn µs/call`] = v.agentUs.median;
  out[`${key}: mcp part of a turn µs/call`] = v.mcpPartUs.median;
  const raw = v.baselines?.find((b) => b.role === 'raw');
  if (raw) out[`${key}: direct / raw`] = v.directUs.median / raw.us.median;
}

if (sections.includes('loop')) {
  gc.collect();
  const configs = [10, 1].flatMap((turns) => [true, false].map((stream) => ({ turns, stream })));
  const loop = await measureLoopOverhead(configs, { warmupRuns: n(500), sampleRuns: n(3_000) });
  for (const r of loop) {
    const key = `loop ${r.config.turns} turn(s), stream ${r.config.stream}`;
    out[`${key}: overhead ms/run`] = r.overheadPerRunMs.median;
  }
}
if (sections.includes('pipeline')) {
  gc.collect();
  const p = await measurePipelineOverhead({
    warmupCalls: n(5_000),
    batchSize: 100,
    samples: n(1_000),
  });
  out['pipeline overhead µs/call, allow'] = p.allowOverheadUs;
  out['pipeline overhead µs/call, with hooks'] = p.hooksOverheadUs;
}
if (sections.includes('mcp')) {
  gc.collect();
  const home = mkdtempSync(join(tmpdir(), 'muster-ab-home-'));
  process.env.MUSTER_HOME = home;
  try {
    const m = await measureMcpCalls({
      stdio: { warmupSamples: 5, samples: n(160), epochs: 4 },
      http: { warmupSamples: 3, samples: n(40), epochs: 2 },
      sdk: { warmupSamples: 30, samples: n(300) },
      big: { warmupSamples: 3, samples: n(24), epochs: 2 },
      collect: gc.collect,
    });
    for (const [name, c] of Object.entries(m))
      for (const v of c.variants) record(`mcp ${name} ${v.variant}`, v);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
// `stdio` and `big` run one comparison of the MCP section alone, in a fresh process: in the
// whole section each runs after thousands of other calls, whose leftovers (a tree that keeps
// memory per run, say) the raw client's calls in the same process pay for too
if (sections.includes('stdio') || sections.includes('big')) {
  const { compareCalls } = await import('./mcp-calls.js');
  const { stdioConfig } = await import('../test/support/mcp-fixtures.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const { Client } = await import('@modelcontextprotocol/client');
  const { z } = await import('zod');
  // as the base commit's own raw client in these comparisons
  const raw = async (server, mode = 'auto') => {
    const client = new Client(
      { name: 'muster-ab-raw', version: '0.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(new StdioClientTransport(server));
    return { client, close: () => client.close() };
  };
  const collect = { collect: gc.collect, collectEvery: 10 };
  const home = mkdtempSync(join(tmpdir(), 'muster-ab-home-'));
  process.env.MUSTER_HOME = home;
  try {
    if (sections.includes('stdio')) {
      gc.collect();
      const server = stdioConfig('basic-server.mjs');
      const c = await compareCalls({
        ...collect,
        warmupSamples: 5,
        samples: n(160),
        epochs: 4,
        label: 'stdio, alone',
        tool: 'echo',
        args: { text: 'hello' },
        hostInput: z.object({ text: z.string() }),
        batch: 8,
        variants: ['sequential', 'concurrent'],
        openRaw: () => raw(server),
        referenceRaw: [{ label: 'raw client, legacy', open: () => raw(server, 'legacy') }],
        server,
        checkContent: (text) => text === 'default: hello',
      });
      for (const v of c.variants) {
        out[`mcp stdio ${v.variant} alone: muster µs/call`] = v.musterUs.median;
        out[`mcp stdio ${v.variant} alone: muster / raw`] = v.ratio;
      }
    }
    if (sections.includes('big')) {
      gc.collect();
      const server = stdioConfig('big-result-server.mjs');
      const c = await compareCalls({
        ...collect,
        warmupSamples: 3,
        samples: n(50),
        epochs: 2,
        label: 'a 1 MiB result, alone',
        openRaw: () => raw(server),
        server,
        tool: 'big',
        args: { kib: 1024 },
        hostInput: z.object({ kib: z.number() }),
        batch: 1,
        variants: ['sequential'],
        checkContent: (text) => text.includes('[archived: ref='),
      });
      out['mcp big alone: muster µs/call'] = c.variants[0].musterUs.median;
      out['mcp big alone: muster / raw'] = c.variants[0].ratio;
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
process.stdout.write(`AB ${JSON.stringify(out)}\n`);
process.exit(0);
