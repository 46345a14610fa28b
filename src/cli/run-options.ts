import { Option } from 'commander';
import type { Command } from 'commander';
import { MusterError } from '../errors/index.js';

/** Adds the options `muster run` and `muster sessions resume` share to `command`. */
export function addRunOptions(command: Command): Command {
  return command
    .option(
      '-m, --model <provider:name>',
      'the model (default: MUSTER_MODEL): openai:<model>, anthropic:<model>, ollama:<model>, scripted:<file.json>',
    )
    .option(
      '--base-url <url>',
      'the API base URL (openai, ollama; ollama default: OLLAMA_HOST or http://127.0.0.1:11434/v1)',
    )
    .option(
      '--allow <pattern>',
      'a tool pattern that runs without asking (mcp__srv__tool, mcp__srv__*, *, mcp_connect:<server>); repeat for more',
      collect,
    )
    .option('--deny <pattern>', 'a tool pattern that is always refused; repeat for more', collect)
    .addOption(
      new Option(
        '--default <decision>',
        'what happens to other calls: ask (a prompt on a TTY; refused without one), allow or deny',
      )
        .choices(['ask', 'allow', 'deny'])
        .default('ask'),
    )
    .option(
      '--store <url>',
      'keep sessions in PostgreSQL (postgres://…) instead of the SQLite file under MUSTER_HOME',
    )
    .option('--system <text>', 'the system prompt')
    .option(
      '--lease-ms <ms>',
      'how long a run that died keeps its session before it may be resumed (default 30000)',
      parseLease,
    );
}

/** One value of a repeatable option, added to the ones before it. */
function collect(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parseLease(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--lease-ms takes a positive whole number of milliseconds, not '${value}'.`,
    );
  }
  return n;
}
