import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settledChildren } from './child-processes.js';
import { measureMcpCalls } from './mcp-calls.js';
import type { McpCallsOptions, McpCallsResult } from './mcp-calls.js';
import { measureCatalog, measureStartup } from './mcp-startup.js';
import type { ReadyResult, StartupOptions, StartupResult } from './mcp-startup.js';
import { PEERS_INSTALL_HINT } from './peers.js';

/** What {@link measureMcp} takes. */
export interface McpBenchOptions extends McpCallsOptions {
  readonly startup: StartupOptions;
  readonly catalog: { readonly tools: number; readonly repetitions: number };
}

/** Everything the MCP benchmark measured. */
export interface McpBenchResult {
  readonly calls: McpCallsResult;
  readonly startup: StartupResult;
  readonly catalog: ReadyResult;
  /** Whether the peer clients were installed and measured. */
  readonly peers: boolean;
  /** Child processes still alive after everything was closed (`undefined`: cannot tell). */
  readonly leftoverChildren: readonly number[] | undefined;
  readonly seconds: number;
}

/**
 * Runs the MCP benchmark against the raw official client (its default, legacy, and `auto`)
 * and the peers: per-call cost over stdio, HTTP and in process, a 1 MiB result, ten stdio
 * servers ready and a 500-tool catalog. `MUSTER_HOME` points at a fresh temporary folder
 * meanwhile (restored after), so nothing cached in the user's home is used.
 */
export async function measureMcp(options: McpBenchOptions): Promise<McpBenchResult> {
  const started = performance.now();
  const previousHome = process.env.MUSTER_HOME;
  const home = mkdtempSync(join(tmpdir(), 'muster-bench-home-'));
  process.env.MUSTER_HOME = home;
  let calls: McpCallsResult;
  let startup: StartupResult;
  let catalog: ReadyResult;
  try {
    calls = await measureMcpCalls(options);
    startup = await measureStartup(options.startup);
    catalog = await measureCatalog(options.catalog.tools, options.catalog.repetitions);
  } finally {
    if (previousHome === undefined) delete process.env.MUSTER_HOME;
    else process.env.MUSTER_HOME = previousHome;
    rmSync(home, { recursive: true, force: true });
  }
  const leftoverChildren = await settledChildren();
  return {
    calls,
    startup,
    catalog,
    peers: options.peers !== undefined,
    leftoverChildren,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The line about the peers when they were not measured, else nothing. */
export function peersNote(r: McpBenchResult): string | undefined {
  return r.peers ? undefined : PEERS_INSTALL_HINT;
}
