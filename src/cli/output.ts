import { MusterError, toMusterError } from '../errors/index.js';
import type { CliIo } from './cli-io.js';
import { exitCodeOf } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';

/** The global options every command shares. */
export interface GlobalOptions {
  /** Print one JSON document on stdout and nothing else. */
  readonly json: boolean;
  /** False with `--no-color` or `NO_COLOR` set (to anything but the empty string). */
  readonly color: boolean;
}

/** How a command prints: data, human lines, notices and errors, after the global options. */
export class Output {
  constructor(
    readonly io: CliIo,
    readonly options: GlobalOptions,
  ) {}

  /** Prints `value` as the command's one JSON document (with `--json`). */
  json(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Prints a line of human output on stdout (never with `--json`). */
  line(text = ''): void {
    if (!this.options.json) this.io.stdout.write(`${text}\n`);
  }

  /** Prints a notice on stderr (never on stdout, so `--json` output stays one document). */
  notice(text: string): void {
    this.io.stderr.write(`${this.paint('dim', text)}\n`);
  }

  /** Wraps `text` in an ANSI style when color is on. */
  paint(style: 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan', text: string): string {
    if (!this.options.color) return text;
    const codes = {
      bold: [1, 22],
      dim: [2, 22],
      red: [31, 39],
      green: [32, 39],
      yellow: [33, 39],
      cyan: [36, 39],
    }[style];
    return `\u001b[${codes[0]}m${text}\u001b[${codes[1]}m`;
  }

  /**
   * Reports a failure on stderr (`error [CODE]: message`; with `--json`, also as
   * `{ "error": { code, message } }` on stdout) and returns its exit code.
   */
  failure(err: unknown): ExitCode {
    const error = MusterError.isInstance(err)
      ? err
      : toMusterError(err, 'INTERNAL_ERROR', 'The command failed unexpectedly');
    if (this.options.json) this.json({ error: { code: error.code, message: error.message } });
    this.io.stderr.write(`${this.paint('red', `error [${error.code}]`)}: ${error.message}\n`);
    return exitCodeOf(error.code);
  }
}

/** Whether color is on: off with `--no-color`, with `NO_COLOR` set, or when stdout is no TTY. */
export function colorEnabled(io: CliIo, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  const noColor = io.env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  return io.interactive;
}
