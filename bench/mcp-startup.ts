import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createAgent } from '../src/index.js';
import type { McpServerConfig } from '../src/index.js';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import { RAW_CLIENT_INFO } from './mcp-calls.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

/** Muster's default `mcp.startupConcurrency` (SPEC section 7), left unset in this benchmark. */
export const DEFAULT_STARTUP_CONCURRENCY = 4;

/** What {@link measureStartup} takes. */
export interface StartupOptions {
  /** How many `basic-server.mjs` copies. Default 10. */
  readonly servers?: number;
  /** Timed repetitions of every case. Default 3. */
  readonly repetitions?: number;
}

/** Time until N stdio servers are ready (connected, tools listed), in milliseconds. */
export interface StartupResult {
  readonly servers: number;
  readonly startupConcurrency: number;
  /** N raw clients, `versionNegotiation: legacy`, connect + `listTools` all in parallel. */
  readonly rawMs: Summary;
  /** `agent.initialize()` of a new agent, first in a fresh `MUSTER_HOME`. */
  readonly musterFirstMs: Summary;
  /** `agent.initialize()` of a second agent created afterwards in the same `MUSTER_HOME`. */
  readonly musterSecondMs: Summary;
  readonly musterEra: string;
  /** Wall time of the whole measurement, closes included. */
  readonly seconds: number;
  /** Median of `musterFirstMs` over median of `rawMs`. */
  readonly firstRatio: number;
  /** Median of `musterSecondMs` over median of `rawMs`. */
  readonly secondRatio: number;
}

function declarations(count: number): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (let i = 0; i < count; i++) out[`s${i}`] = stdioConfig('basic-server.mjs', [`--name=s${i}`]);
  return out;
}

/** Connects `count` raw clients in parallel (legacy negotiation), lists tools, closes; returns ms. */
async function rawStartup(count: number): Promise<number> {
  const clients = Array.from(
    { length: count },
    () => new Client(RAW_CLIENT_INFO, { versionNegotiation: { mode: 'legacy' } }),
  );
  try {
    const start = performance.now();
    await Promise.all(
      clients.map(async (client, i) => {
        await client.connect(
          new StdioClientTransport(stdioConfig('basic-server.mjs', [`--name=s${i}`])),
        );
        const { tools } = await client.listTools();
        if (!tools.some((t) => t.name === 'echo')) throw new Error('raw client: no echo tool');
      }),
    );
    return performance.now() - start;
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
  }
}

/** Creates an agent with `count` servers, times `initialize()`, checks and closes it. */
async function musterStartup(count: number): Promise<{ ms: number; era: string }> {
  const agent = createAgent({
    mcp: { strictConfig: true },
    mcpServers: declarations(count),
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  });
  try {
    const start = performance.now();
    await agent.initialize();
    const ms = performance.now() - start;
    const servers = agent.mcp.list();
    const bad = servers.filter((s) => s.status !== 'connected' || s.tools.length === 0);
    if (servers.length !== count || bad.length > 0)
      throw new Error(
        `Muster startup: ${bad.map((s) => `${s.name} ${s.status} ${s.error?.message ?? ''}`).join('; ')}`,
      );
    return { ms, era: servers[0]?.era ?? '?' };
  } finally {
    await agent.close();
  }
}

/**
 * Time until `servers` stdio servers (`basic-server.mjs`) are ready: Muster's
 * `agent.initialize()` (default startup concurrency, default protocol mode) against raw
 * official clients connecting all of them in parallel with legacy negotiation and listing
 * their tools (run it after something has started the fixture once, so the file cache is
 * warm: the per-call comparisons do). Every repetition points
 * `MUSTER_HOME` at a fresh temporary folder, creates the first agent in it, then a second
 * agent (which may reuse whatever the first left there); `MUSTER_HOME` is restored after.
 */
export async function measureStartup(options: StartupOptions = {}): Promise<StartupResult> {
  const started = performance.now();
  const count = options.servers ?? 10;
  const repetitions = options.repetitions ?? 3;
  const previousHome = process.env.MUSTER_HOME;
  const raw: number[] = [];
  const first: number[] = [];
  const second: number[] = [];
  let era = '?';
  try {
    for (let r = 0; r < repetitions; r++) {
      raw.push(await rawStartup(count));
      const home = mkdtempSync(join(tmpdir(), 'muster-bench-home-'));
      process.env.MUSTER_HOME = home;
      try {
        const a = await musterStartup(count);
        first.push(a.ms);
        era = a.era;
        second.push((await musterStartup(count)).ms);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  } finally {
    if (previousHome === undefined) delete process.env.MUSTER_HOME;
    else process.env.MUSTER_HOME = previousHome;
  }
  const rawMs = summarize(raw);
  const musterFirstMs = summarize(first);
  const musterSecondMs = summarize(second);
  return {
    servers: count,
    startupConcurrency: DEFAULT_STARTUP_CONCURRENCY,
    rawMs,
    musterFirstMs,
    musterSecondMs,
    musterEra: era,
    seconds: (performance.now() - started) / 1000,
    firstRatio: musterFirstMs.median / rawMs.median,
    secondRatio: musterSecondMs.median / rawMs.median,
  };
}
