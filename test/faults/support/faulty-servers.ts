/**
 * Launch configurations for the misbehaving fixture servers of `test/fixtures/faulty/`, and
 * readers of what they record (process starts, exits and tool executions).
 */
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServerConfig } from '../../../src/index.js';

export { startFaultyHttp } from '../../fixtures/faulty/faulty-http.mjs';
export type {
  FaultyHttp,
  FaultyHttpCounts,
  FaultyHttpFault,
  FaultyHttpOptions,
} from '../../fixtures/faulty/faulty-http.mjs';

/** Absolute path of `test/fixtures/faulty/faulty-stdio.mjs`. */
export const FAULTY_STDIO = fileURLToPath(
  new URL('../../fixtures/faulty/faulty-stdio.mjs', import.meta.url),
);

/** Absolute path of `test/fixtures/faulty/faulty-http.mjs` (to run it as its own process). */
export const FAULTY_HTTP = fileURLToPath(
  new URL('../../fixtures/faulty/faulty-http.mjs', import.meta.url),
);

/** How a faulty stdio process starts (see faulty-stdio.mjs). */
export type StdioStartMode =
  | 'normal'
  | 'exit-at-start'
  | 'hang-init'
  | 'slow-start'
  | 'exit-on-probe';

/** Options of {@link faultyStdio}. */
export interface FaultyStdioOptions {
  readonly mode?: StdioStartMode;
  /** The mode of every later process with the same log (a reconnect, a start after the probe). */
  readonly restartMode?: StdioStartMode;
  readonly exitCode?: number;
  readonly delayMs?: number;
  readonly name?: string;
  /** Where the process records `start`, `call` and `exit` lines (see {@link faultLog}). */
  readonly log?: string;
  readonly env?: Record<string, string>;
}

/** A stdio declaration of faulty-stdio.mjs. */
export function faultyStdio(options: FaultyStdioOptions = {}): McpStdioServerConfig {
  const args = [FAULTY_STDIO];
  if (options.mode) args.push(`--mode=${options.mode}`);
  if (options.restartMode) args.push(`--restart-mode=${options.restartMode}`);
  if (options.exitCode !== undefined) args.push(`--exit-code=${options.exitCode}`);
  if (options.delayMs !== undefined) args.push(`--delay-ms=${options.delayMs}`);
  if (options.name) args.push(`--name=${options.name}`);
  if (options.log) args.push(`--log=${options.log}`);
  return {
    command: process.execPath,
    args,
    ...(options.env ? { env: options.env } : {}),
  };
}

/** A fresh log file path in its own temporary directory. */
export function faultLog(label = 'fault'): string {
  return join(mkdtempSync(join(tmpdir(), `muster-${label}-`)), 'events.log');
}

/** What one faulty stdio log holds. */
export interface FaultLog {
  /** Pids of every process started, in order (probe processes included). */
  readonly starts: number[];
  /** Pids of every process that recorded its exit. */
  readonly exits: number[];
  /** Tool executions, in order. */
  readonly calls: { readonly tool: string; readonly pid: number }[];
}

/** Reads a log written by faulty-stdio.mjs (a missing file: nothing started). */
export async function readFaultLog(file: string): Promise<FaultLog> {
  let content = '';
  try {
    content = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const log: { starts: number[]; exits: number[]; calls: { tool: string; pid: number }[] } = {
    starts: [],
    exits: [],
    calls: [],
  };
  for (const line of content.split('\n')) {
    const parts = line.split(' ');
    if (parts[0] === 'start') log.starts.push(Number(parts[1]));
    else if (parts[0] === 'exit') log.exits.push(Number(parts[1]));
    else if (parts[0] === 'call') log.calls.push({ tool: parts[1] ?? '', pid: Number(parts[2]) });
  }
  return log;
}

/** Whether a process with this pid still exists (a zombie counts as gone once reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
