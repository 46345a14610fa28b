import { Command, CommanderError } from 'commander';
import { MusterError } from '../errors/index.js';
import { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { decideCommand } from './decide-command.js';
import { EXIT_CODES } from './exit-codes.js';
import { mcpCommands } from './mcp-commands.js';
import { mcpAuthCommands } from './mcp-auth-command.js';
import { exitCodeSetOn } from './exit-status.js';
import { addHelpExamples } from './help-examples.js';
import { Output } from './output.js';
import { runGroup } from './run-group.js';
import { sessionsGroup } from './sessions-group.js';
import { studioGroup } from './studio-command.js';
import { CLI_VERSION } from './version.js';
import { workerGroup } from './worker-command.js';

/** A group of commands: adds itself to the program. */
export type CommandGroup = (program: Command, ctx: CliContext) => void;

/** The command groups of `muster`, in the order `--help` lists them. */
const GROUPS: readonly CommandGroup[] = [
  mcpCommands,
  mcpAuthCommands,
  runGroup,
  sessionsGroup,
  decideCommand,
  workerGroup,
  studioGroup,
];

/**
 * Runs the `muster` command line `argv` (without the node and script paths) against `io`
 * and resolves with the exit code (`docs/cli.md`). Never calls `process.exit`.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  groups: readonly CommandGroup[] = GROUPS,
): Promise<number> {
  const program = new Command('muster');
  const ctx = new CliContext(io, program);
  program
    .description('Muster: MCP servers, sign-in and agent runs from the terminal.')
    .version(CLI_VERSION, '-V, --version')
    .option('--json', 'print one JSON document on stdout and nothing else')
    .option('--no-color', 'no colors (NO_COLOR is respected too)')
    .option('-C, --workdir <dir>', 'the project directory (default: the current directory)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  for (const group of groups) group(program, ctx);
  addHelpExamples(program);
  let exitCode: number = EXIT_CODES.ok;
  program.hook('postAction', (_this, action) => {
    const code = exitCodeSetOn(action);
    if (code !== undefined) exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with code 0
      if (err.exitCode === 0) return EXIT_CODES.ok;
      // commander printed its text on stderr; with --json, stdout still gets its one document
      if (jsonRequested(argv)) {
        const message = err.message.replace(/^error: /, '');
        new Output(io, { json: true, color: false }).json({
          error: { code: 'INVALID_CONFIGURATION', message },
        });
      }
      return EXIT_CODES.usage;
    }
    if (MusterError.isInstance(err)) return ctx.output().failure(err);
    return new Output(io, { json: false, color: false }).failure(err);
  }
}

/** Whether `--json` is on the command line (before a `--`), even when parsing failed. */
function jsonRequested(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export { setExitCode } from './exit-status.js';
