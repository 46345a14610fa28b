import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';
import { colorEnabled, Output } from './output.js';

/**
 * What every command gets: the streams and environment, and, once the command line is
 * parsed, the global options (`--json`, `--no-color`, `--workdir`).
 */
export class CliContext {
  #command: string | undefined;

  constructor(
    readonly io: CliIo,
    private readonly program: Command,
  ) {
    // the command line names the command being run (`muster mcp add`), for its errors
    program.hook('preAction', (_program, action) => {
      const names: string[] = [];
      for (let c: Command | null = action; c !== null; c = c.parent) names.unshift(c.name());
      this.#command = names.join(' ');
    });
  }

  /** How to print, after the global options. */
  output(): Output {
    const opts = this.program.opts<{ json?: boolean; color?: boolean }>();
    return new Output(
      this.io,
      {
        json: opts.json === true,
        color: opts.json === true ? false : colorEnabled(this.io, opts.color),
      },
      this.#command,
    );
  }

  /** Where project files live (`--workdir`, default the current directory). */
  workdir(): string {
    const dir = this.program.opts<{ workdir?: string }>().workdir;
    return dir === undefined ? this.io.cwd : resolve(this.io.cwd, dir);
  }

  /** `MUSTER_HOME`, else `~/.muster`: user config, credentials, sessions. */
  home(): string {
    const home = this.io.env['MUSTER_HOME'];
    if (home !== undefined && home !== '')
      return isAbsolute(home) ? home : resolve(this.io.cwd, home);
    return join(homedir(), '.muster');
  }
}
