import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpServerConfig } from '../src/index.js';
import { stdioConfig } from '../test/support/mcp-fixtures.js';
import type { StdioLaunch } from '../test/support/mcp-fixtures.js';
import { RAW_CLIENT_INFO } from './mcp-endpoints.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';
import { muster } from './muster.js';

const { createAgent } = muster;

/** Muster's default `mcp.startupConcurrency` (SPEC section 7), left unset in this benchmark. */
export const DEFAULT_STARTUP_CONCURRENCY = 4;

/** What {@link measureStartup} takes. */
export interface StartupOptions {
  /** How many `basic-server.mjs` copies. Default 10. */
  readonly servers?: number;
  /** Timed repetitions of every case. Default 3. */
  readonly repetitions?: number;
}

/** Time until some stdio servers are ready (connected, tools listed), in milliseconds. */
export interface ReadyResult {
  readonly servers: number;
  /** Raw clients with the client's default negotiation (legacy), all in parallel. */
  readonly rawMs: Summary;
  /** Raw clients with `versionNegotiation: auto`, all in parallel. */
  readonly rawAutoMs: Summary;
  /** `agent.initialize()` of a new agent, first in a fresh `MUSTER_HOME` (first contact). */
  readonly musterFirstMs: Summary;
  /** `agent.initialize()` of a second agent in the same `MUSTER_HOME` (cached verdicts). */
  readonly musterSecondMs: Summary;
  readonly musterEra: string;
  /** Tools Muster listed in all. */
  readonly tools: number;
  /** Wall time of the whole measurement, closes included. */
  readonly seconds: number;
}

/** {@link ReadyResult} for N servers, with Muster's startup concurrency. */
export interface StartupResult extends ReadyResult {
  readonly startupConcurrency: number;
}

/** Connects raw clients to every launch in parallel, lists tools, closes; returns ms. */
export async function rawReady(
  launches: readonly StdioLaunch[],
  mode: 'legacy' | 'auto',
  minTools: number,
): Promise<number> {
  const clients = launches.map(() =>
    mode === 'legacy'
      ? new Client(RAW_CLIENT_INFO)
      : new Client(RAW_CLIENT_INFO, { versionNegotiation: { mode: 'auto' } }),
  );
  try {
    const start = performance.now();
    await Promise.all(
      clients.map(async (client, i) => {
        await client.connect(new StdioClientTransport(launches[i]!));
        const { tools } = await client.listTools();
        if (tools.length < minTools) throw new Error(`raw client: ${tools.length} tools`);
      }),
    );
    return performance.now() - start;
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
  }
}

/** Creates an agent with the servers, times `initialize()`, checks and closes it. */
export async function musterReady(
  launches: readonly StdioLaunch[],
  minTools: number,
): Promise<{ ms: number; era: string; tools: number }> {
  const mcpServers: Record<string, McpServerConfig> = {};
  launches.forEach((l, i) => (mcpServers[`s${i}`] = l));
  const agent = createAgent({
    mcp: { strictConfig: true },
    mcpServers,
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  });
  try {
    const start = performance.now();
    await agent.initialize();
    const ms = performance.now() - start;
    const servers = agent.mcp.list();
    const bad = servers.filter((s) => s.status !== 'connected' || s.tools.length < minTools);
    if (servers.length !== launches.length || bad.length > 0)
      throw new Error(
        `Muster startup: ${bad.map((s) => `${s.name} ${s.status} ${s.tools.length} tools ${s.error?.message ?? ''}`).join('; ')}`,
      );
    const tools = servers.reduce((sum, s) => sum + s.tools.length, 0);
    return { ms, era: servers[0]?.era ?? '?', tools };
  } finally {
    await agent.close();
  }
}

/**
 * Time until the stdio servers of `launches` are ready: Muster's `agent.initialize()`
 * (default startup concurrency, default protocol mode) against raw official clients
 * connecting all of them in parallel (the client's default, legacy, and `auto`) and listing
 * their tools. Every repetition runs the four cases in a rotating order, points `MUSTER_HOME`
 * at a fresh temporary folder, creates the first agent in it, then a second agent (which
 * reuses the verdicts the first cached there); `MUSTER_HOME` is restored after.
 */
export async function measureReady(
  launches: readonly StdioLaunch[],
  repetitions: number,
  minTools = 1,
): Promise<ReadyResult> {
  const started = performance.now();
  const previousHome = process.env.MUSTER_HOME;
  const raw: number[] = [];
  const rawAuto: number[] = [];
  const first: number[] = [];
  const second: number[] = [];
  let era = '?';
  let tools = 0;
  try {
    for (let r = 0; r < repetitions; r++) {
      const home = mkdtempSync(join(tmpdir(), 'muster-bench-home-'));
      const steps = [
        async () => void raw.push(await rawReady(launches, 'legacy', minTools)),
        async () => void rawAuto.push(await rawReady(launches, 'auto', minTools)),
        async () => {
          process.env.MUSTER_HOME = home;
          const a = await musterReady(launches, minTools);
          first.push(a.ms);
          era = a.era;
          tools = a.tools;
          second.push((await musterReady(launches, minTools)).ms);
        },
      ];
      try {
        for (let i = 0; i < steps.length; i++) await steps[(r + i) % steps.length]!();
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  } finally {
    if (previousHome === undefined) delete process.env.MUSTER_HOME;
    else process.env.MUSTER_HOME = previousHome;
  }
  return {
    servers: launches.length,
    rawMs: summarize(raw),
    rawAutoMs: summarize(rawAuto),
    musterFirstMs: summarize(first),
    musterSecondMs: summarize(second),
    musterEra: era,
    tools,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Ten (or `servers`) stdio servers ready: ten distinct declarations of `basic-server.mjs`
 * (`--name=s<i>`, so nothing is deduplicated). Run it after something has started the fixture
 * once, so the file cache is warm: the per-call comparisons do.
 */
export async function measureStartup(options: StartupOptions = {}): Promise<StartupResult> {
  const count = options.servers ?? 10;
  const launches = Array.from({ length: count }, (_, i) =>
    stdioConfig('basic-server.mjs', [`--name=s${i}`]),
  );
  const result = await measureReady(launches, options.repetitions ?? 3);
  return { ...result, startupConcurrency: DEFAULT_STARTUP_CONCURRENCY };
}

/** One stdio server with `tools` tools (`many-tools-server.mjs`, default 500) ready. */
export function measureCatalog(tools: number, repetitions: number): Promise<ReadyResult> {
  return measureReady(
    [stdioConfig('many-tools-server.mjs', [`--tools=${tools}`])],
    repetitions,
    tools,
  );
}
