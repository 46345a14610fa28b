import type { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import { setExitCode } from './exit-status.js';
import { readOutputSchema } from './output-schema-file.js';
import { MusterError } from '../errors/index.js';
import { addRunOptions, parseMaxCost } from './run-options.js';
import type { RunOptions } from './run-session.js';
import { runSession } from './run-session.js';

/** `muster run "<prompt>"`: one agent run from the terminal (docs/cli.md). */
export function runGroup(program: Command, ctx: CliContext): void {
  const run = program
    .command('run')
    .description('run the agent on a prompt, with the MCP servers of the project and user files')
    .argument('<prompt>', 'what to ask')
    .option('-s, --session <id>', 'continue this session (or start one with this id)')
    .option(
      '--output-schema <file>',
      'a JSON Schema file the answer must match: prints the validated value as JSON instead of the text',
    )
    .option(
      '--max-cost <usd>',
      "the run's budget in US dollars (with --price): the run stops once it has spent it (exit 11)",
      parseMaxCost,
    );
  addRunOptions(run)
    .addHelpText(
      'after',
      `
Examples:
  $ muster run "What files are here?" --model openai:gpt-5-mini
  $ MUSTER_MODEL=ollama:llama3.2 muster run --allow 'mcp__fs__*' --allow mcp_connect:fs "Summarize README.md"
  $ muster run "And now?" --session 3f6c…   # continue a session
  $ muster run "Check it" --model scripted:turns.json --default deny --json
  $ muster run "List the open issues" --output-schema issues.schema.json > issues.json
  $ muster run "Pay the invoice" --park   # what needs approval waits: muster sessions waits
  $ muster run "Triage the inbox" --model openai:gpt-5-mini --price 0.25,2,0.025 --max-cost 0.50`,
    )
    .action(
      async (
        prompt: string,
        options: RunOptions & { session?: string; outputSchema?: string; maxCost?: number },
        command: Command,
      ) => {
        if (options.maxCost !== undefined && options.price === undefined)
          throw new MusterError(
            'INVALID_CONFIGURATION',
            "--max-cost counts dollars with the model's price: add --price <input>,<output>[,<cached input>] in US dollars per million tokens.",
            { details: { flag: '--max-cost' } },
          );
        const file = options.outputSchema;
        const schema = file === undefined ? undefined : readOutputSchema(file, ctx.io.cwd);
        const code = await runSession(
          ctx,
          options,
          (agent, signal) =>
            agent.run({
              input: prompt,
              signal,
              ...(options.session === undefined ? {} : { sessionId: options.session }),
              ...(schema === undefined ? {} : { output: { schema } }),
              ...(options.maxCost === undefined ? {} : { limits: { maxCostUsd: options.maxCost } }),
            }),
          file === undefined ? {} : { outputSchemaFile: file },
        );
        setExitCode(command, code);
      },
    );
}
