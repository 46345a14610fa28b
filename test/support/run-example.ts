/**
 * Runs one of `examples/` as a user would (`npx tsx examples/<file>`), from the repository's
 * root, offline, and returns its exit code and output.
 */
import { execFile } from 'node:child_process';
import { ROOT } from '../package/built-package.js';

/** What an example printed, and how it exited (0, or the error's code). */
export interface ExampleRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `examples/<file>` with tsx in a process of its own (60 s at the most). */
export function runExample(file: string): Promise<ExampleRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `examples/${file}`],
      { cwd: ROOT, timeout: 60_000, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        }),
    );
  });
}
