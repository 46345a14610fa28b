import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll } from 'vitest';
import { buildPackage } from '../package/built-package.js';

// Shared by the CLI tests: the `muster` bin built as it ships, run as a user runs it (a real
// process, real files under a temporary MUSTER_HOME).

/** The package as it ships (built once per source state, shared; read-only), and its bin. */
export function buildCli(): { bin: string; dir: string } {
  const built = buildPackage();
  return { bin: join(built.dir, 'dist', 'cli', 'main.js'), dir: built.dir };
}

/**
 * The bin for the calling test file (built before its tests unless the sources were built
 * already) as a view: read `bin` and `dir` inside tests.
 */
export function useBuiltCli(): { readonly bin: string; readonly dir: string } {
  let built: ReturnType<typeof buildCli> | undefined;
  beforeAll(() => {
    built = buildCli();
  }, 120_000);
  const get = () => {
    if (!built) throw new Error('useBuiltCli(): the bin is built in beforeAll; read it in a test');
    return built;
  };
  return {
    get bin() {
      return get().bin;
    },
    get dir() {
      return get().dir;
    },
  };
}

/** What one run of the bin printed, and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of {@link runMuster}. */
export interface RunMusterOptions {
  readonly cwd?: string;
  /** Added to a clean environment (PATH and HOME kept, MUSTER_HOME a fresh folder unless given). */
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** Runs `muster <args>` with stdin closed; resolves when it exits. */
export function runMuster(
  bin: string,
  args: readonly string[],
  options: RunMusterOptions = {},
): Promise<CliRun> {
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? tmpdir(),
    MUSTER_HOME: mkdtempSync(join(tmpdir(), 'muster-home-')),
    ...options.env,
  };
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd ?? tmpdir(), env, timeout: options.timeoutMs ?? 60_000, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}
