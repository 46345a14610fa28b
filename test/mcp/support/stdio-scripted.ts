/**
 * Helpers for tests on `test/fixtures/mcp/scripted-stdio-server.mjs`: its launch config, the
 * files it writes (pids, the methods it received) and process checks by pid.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpStdioServerConfig } from '../../../src/index.js';
import { fixturePath } from '../../support/mcp-fixtures.js';

/** A scratch directory for one fixture's files, and its launch config. */
export interface ScriptedServer {
  readonly config: McpStdioServerConfig;
  /** The pids the fixture's processes wrote, in start order (the probe's first). */
  pids(): number[];
  /** The methods of the requests its processes received, in order. */
  methods(): string[];
  /** Removes the scratch directory. */
  cleanup(): void;
}

function lines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The scripted fixture with `flags` (see its header), writing its pids and methods to files. */
export function scriptedServer(
  flags: readonly string[] = [],
  env?: Record<string, string>,
): ScriptedServer {
  const dir = mkdtempSync(join(tmpdir(), 'muster-scripted-'));
  const pidFile = join(dir, 'pids');
  const logFile = join(dir, 'methods');
  return {
    config: {
      command: process.execPath,
      args: [
        fixturePath('scripted-stdio-server.mjs'),
        `--pid-file=${pidFile}`,
        `--log-file=${logFile}`,
        ...flags,
      ],
      ...(env ? { env } : {}),
    },
    pids: () => lines(pidFile).map(Number),
    methods: () => lines(logFile),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** True while a process of this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (polling) until `check()` holds or `ms` passed; returns whether it held. */
export async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** The error `process.kill(pid, 0)` throws, or undefined while the process exists. */
export function killError(pid: number): NodeJS.ErrnoException | undefined {
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (err) {
    return err as NodeJS.ErrnoException;
  }
}
