import { Option } from 'commander';
import type { Command } from 'commander';
import type { ModelPrice } from '../agent/index.js';
import { MusterError } from '../errors/index.js';

/** The model, store and policy options `muster run`, `muster sessions resume` and `muster studio` share. */
export interface AgentCommandOptions {
  readonly model?: string;
  readonly baseUrl?: string;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly default?: 'ask' | 'allow' | 'deny';
  readonly store?: string;
  readonly system?: string;
}

/** Help texts a command gives instead of the run's, where the option means more for it. */
export interface AgentOptionHelp {
  readonly model?: string;
  readonly default?: string;
  readonly system?: string;
}

/**
 * Adds `--model`, `--base-url`, `--allow`, `--deny`, `--default`, `--store` and `--system`
 * (see {@link AgentCommandOptions}) to `command`, with the run's help texts unless `help`
 * gives others.
 */
export function addAgentOptions(command: Command, help: AgentOptionHelp = {}): Command {
  return command
    .option(
      '-m, --model <provider:name>',
      help.model ??
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
        help.default ??
          'what happens to other calls: ask (a prompt on a TTY; refused without one), allow or deny',
      )
        .choices(['ask', 'allow', 'deny'])
        .default('ask'),
    )
    .option(
      '--store <url>',
      'keep sessions in PostgreSQL (postgres://…) instead of the SQLite file under MUSTER_HOME',
    )
    .option('--system <text>', help.system ?? 'the system prompt');
}

/**
 * Adds the options `muster run` and `muster sessions resume` share to `command`: the agent
 * options, `--lease-ms`, `--park` and `--price`.
 */
export function addRunOptions(command: Command): Command {
  return addAgentOptions(command)
    .option(
      '--lease-ms <ms>',
      'how long a run that died keeps its session before it may be resumed (default 30000)',
      parseLease,
    )
    .option(
      '--park',
      'calls that --default ask leaves open park the run instead of being asked or refused: decide them later with muster decide',
    )
    .option(
      '--price <input,output[,cached]>',
      "the model's price in US dollars per million tokens (input, output, cached input): costs are shown, and --max-cost counts with it",
      parsePrice,
    );
}

/**
 * `--max-cost <usd>`: a positive number of US dollars (`limits.maxCostUsd`), `INVALID_CONFIGURATION`
 * otherwise.
 */
export function parseMaxCost(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--max-cost takes a positive number of US dollars (such as 0.50), not '${value}'.`,
      { details: { flag: '--max-cost' } },
    );
  return n;
}

/** `--price <input,output[,cached]>`: dollars per million tokens, each 0 or more. */
function parsePrice(value: string): ModelPrice {
  const parts = value.split(',').map((p) => Number(p.trim()));
  const ok =
    (parts.length === 2 || parts.length === 3) &&
    value.split(',').every((p) => p.trim() !== '') &&
    parts.every((n) => Number.isFinite(n) && n >= 0);
  if (!ok)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--price takes the model's price in US dollars per million tokens as <input>,<output>[,<cached input>] (such as 3,15,0.3), not '${value}'.`,
      { details: { flag: '--price' } },
    );
  return {
    inputPerMTok: parts[0]!,
    outputPerMTok: parts[1]!,
    ...(parts[2] !== undefined ? { cachedInputPerMTok: parts[2] } : {}),
  };
}

/** One value of a repeatable option, added to the ones before it. */
export function collect(value: string, previous: readonly string[] | undefined): string[] {
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
