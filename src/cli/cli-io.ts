import type { Readable, Writable } from 'node:stream';

/**
 * What a command reads and writes: its streams, environment and working directory, and
 * whether it talks to a person (a TTY) and may use color. Commands never touch
 * `process.stdout` or `process.env` themselves, so tests can run them in-process too.
 */
export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** True when stdin and stdout are terminals: prompts and spinners are allowed. */
  readonly interactive: boolean;
}

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  };
}
