import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { buildPackage } from '../package/built-package.js';
import type { CliIo } from '../../src/cli/cli-io.js';

// Shared by the CLI tests: the `muster` bin built as it ships, run as a user runs it (a real
// process, real files under a temporary MUSTER_HOME), or its program run in-process with the
// same arguments, directory and environment where the process itself is not the subject.

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
  /**
   * Runs the built program (`dist/cli/program.js`, beside the bin) inside this process, with
   * the same arguments, environment, working directory and closed stdin, instead of starting
   * the bin. For tests whose subject is what a command does and prints, not the process: the
   * bin's own part (exit status, a closed pipe, missing optional packages) is tested through
   * real processes in cli-basics, run-tty and cli-errors. Saves a process start (about
   * 0.4 CPU-s) per command. `MUSTER_TEST_CLI=process` runs every command through the bin.
   */
  readonly inProcess?: boolean;
}

let inProcessByDefault = false;

/**
 * For the calling test file: {@link runMuster} runs commands in-process unless a call says
 * `inProcess: false` (see {@link RunMusterOptions.inProcess}).
 */
export function runCommandsInProcess(): void {
  beforeAll(() => {
    inProcessByDefault = true;
  });
  afterAll(() => {
    inProcessByDefault = false;
  });
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
  if ((options.inProcess ?? inProcessByDefault) && process.env['MUSTER_TEST_CLI'] !== 'process')
    return runProgram(bin, args, env, options);
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

/** The built program's entry, as the bin at `bin` imports it. */
type RunCli = (argv: readonly string[], io: CliIo) => Promise<number>;

/** In-process commands run one at a time: each holds the process's directory and variables. */
let programQueue: Promise<unknown> = Promise.resolve();

/**
 * Runs the built program in this process (see {@link RunMusterOptions.inProcess}), one command
 * at a time. While it runs, the process's working directory and variables are those a bin
 * process would have (`cwd`, and `env` over the rest), for the library's own defaults
 * (`process.cwd()`, `MUSTER_HOME`) as much as for the program's; both are restored after.
 */
function runProgram(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: RunMusterOptions,
): Promise<CliRun> {
  const run = programQueue.then(async () => {
    const cwd = process.cwd();
    const saved = Object.keys(env).map((k) => [k, process.env[k]] as const);
    Object.assign(process.env, env);
    process.chdir(options.cwd ?? tmpdir());
    try {
      return await runProgramNow(bin, args, env, options);
    } finally {
      process.chdir(cwd);
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
  programQueue = run.catch(() => undefined);
  return run;
}

/** One in-process command; still running after the timeout, it fails with what it printed. */
async function runProgramNow(
  bin: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  options: RunMusterOptions,
): Promise<CliRun> {
  const { runCli } = (await import(pathToFileURL(join(dirname(bin), 'program.js')).href)) as {
    runCli: RunCli;
  };
  let stdout = '';
  let stderr = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const io: CliIo = {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    stdin: Readable.from([]),
    env,
    cwd: options.cwd ?? tmpdir(),
    interactive: false,
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`muster ${args.join(' ')} ran past ${timeoutMs} ms:\n${stdout}\n${stderr}`),
        ),
      timeoutMs,
    );
  });
  try {
    const code = await Promise.race([runCli(args, io), timedOut]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}
