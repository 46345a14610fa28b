import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { runnableScript } from './ts-script.js';

/** A child process running a TypeScript fixture (bundled by {@link runnableScript}). */
export interface ChildRun {
  readonly child: ChildProcess;
  /** Resolves with the rest of the first stdout line starting with `prefix `. */
  line(prefix: string): Promise<string>;
  /** Resolves with the rest of the next stdout line starting with `prefix ` printed after this call. */
  next(prefix: string): Promise<string>;
  /** Resolves when the process has exited, with its signal or code. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything the child wrote to stderr so far (for failure messages). */
  stderr(): string;
  /** The stdout lines the child wrote so far, joined with newlines. */
  stdout(): string;
}

/** How {@link startChild} starts the fixture, beyond its environment. */
export interface ChildOptions {
  /** Arguments after the script. */
  readonly args?: readonly string[];
  /** Whether the test writes to the child's stdin (`child.stdin`); ignored by default. */
  readonly stdin?: boolean;
}

/**
 * Starts `<script>` (TypeScript, made runnable by {@link runnableScript}) with `env` added to
 * this process's environment.
 */
export function startChild(
  script: string,
  env: Record<string, string>,
  options: ChildOptions = {},
): ChildRun {
  const child = spawn(process.execPath, [runnableScript(script), ...(options.args ?? [])], {
    env: { ...process.env, ...env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (rest: string) => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => {
    lines.push(l);
    for (const w of [...waiters])
      if (l.startsWith(`${w.prefix} `)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(l.slice(w.prefix.length + 1));
      }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    stderr: () => err,
    stdout: () => lines.join('\n'),
    line: (prefix) => {
      const seen = lines.find((l) => l.startsWith(`${prefix} `));
      if (seen !== undefined) return Promise.resolve(seen.slice(prefix.length + 1));
      return waitFor(prefix);
    },
    next: (prefix) => waitFor(prefix),
  };
  function waitFor(prefix: string): Promise<string> {
    return Promise.race([
      new Promise<string>((resolve) => waiters.push({ prefix, resolve })),
      exited.then(({ code, signal }) => {
        throw new Error(`the child exited (${code ?? signal}) before '${prefix}': ${err}`);
      }),
    ]);
  }
}
