import { McpError, MusterError, toMusterError } from '../errors/index.js';
import type { CliIo } from './cli-io.js';
import { inCliTerms, namesFlagOrCommand } from './cli-terms.js';
import { exitCodeOf } from './exit-codes.js';
import type { ExitCode } from './exit-codes.js';
import { serverStderrOf, stderrLines } from './server-stderr.js';

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
    /** The command being run (`muster mcp add`), once the command line is parsed. */
    readonly command?: string,
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
   * `{ "error": { code, message } }` on stdout) and returns its exit code. The message is
   * said in the command's terms ({@link Output.cliMessage}); a stdio server that crashed
   * has its redacted stderr tail printed under it (and, with `--json`, as `server` and
   * `stderrTail`).
   */
  failure(err: unknown): ExitCode {
    const error = MusterError.isInstance(err)
      ? err
      : toMusterError(err, 'INTERNAL_ERROR', 'The command failed unexpectedly');
    const message = this.cliMessage(error);
    const stderr = serverStderrOf(err);
    if (this.options.json)
      this.json({
        error: {
          code: error.code,
          message,
          ...(stderr ? { server: stderr.server, stderrTail: stderr.tail } : {}),
        },
      });
    this.errorLine(error.code, message);
    if (stderr) for (const line of stderrLines(stderr)) this.io.stderr.write(`${line}\n`);
    return exitCodeOf(error.code);
  }

  /** Prints `error [CODE]: message` on stderr. */
  errorLine(code: string, message: string): void {
    this.io.stderr.write(`${this.paint('red', `error [${code}]`)}: ${message}\n`);
  }

  /**
   * `error`'s message in the terms of the `muster` command (flags and commands, never the
   * library's options, `cli-terms.ts`), ending with where to look when it names neither a
   * flag nor a command: `muster mcp get <server>` for a server's failure, else the
   * command's `--help`.
   */
  cliMessage(error: MusterError, text = error.message): string {
    const message = inCliTerms(text);
    if (namesFlagOrCommand(message)) return message;
    if (McpError.isInstance(error) && error.server !== undefined)
      return `${message} Check its declaration with muster mcp get ${error.server}.`;
    if (error.code.startsWith('MODEL_')) return `${message} (the model chosen with --model)`;
    return this.command === undefined ? message : `${message} (see ${this.command} --help)`;
  }
}

/** Whether color is on: off with `--no-color`, with `NO_COLOR` set, or when stdout is no TTY. */
export function colorEnabled(io: CliIo, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  const noColor = io.env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return false;
  return io.interactive;
}
