import type { Command } from 'commander';

const ROOT_EXAMPLES = `
Examples:
  $ muster mcp add everything -- npx -y @modelcontextprotocol/server-everything stdio
  $ muster mcp list
  $ muster run "Summarize README.md" --model openai:gpt-5-mini
  $ muster sessions list --json
  $ muster run "Deploy it" --park && muster sessions waits
  $ MUSTER_STORE=postgres://muster@db/muster muster worker --concurrency 4
  $ muster studio --open

Exit codes: 0 ok, 1 internal, 2 usage/config, 3 MCP, 4 sign-in needed, 5 refused by the policy,
6 tool failed, 7 session or wait, 8 model, 9 run limit, 10 typed answer invalid, 11 budget spent,
130 interrupted (docs/cli.md).`;

const MCP_EXAMPLES = `
Examples:
  $ muster mcp add files -- node ./files-server.js
  $ muster mcp import .mcp.json
  $ muster mcp list --json
  $ muster mcp tools files
  $ muster mcp call files read_file --arg path=README.md
  $ muster mcp auth docs`;

const SESSIONS_EXAMPLES = `
Examples:
  $ muster sessions list
  $ muster sessions show <id> --json
  $ muster sessions waits
  $ muster decide <session> <wait> --allow
  $ muster sessions resume <id> --model openai:gpt-5-mini`;

/**
 * Adds the examples of `muster --help`, `muster mcp --help` and `muster sessions --help`
 * once every group has added its commands (the subcommands keep their own examples).
 */
export function addHelpExamples(program: Command): void {
  program.addHelpText('after', ROOT_EXAMPLES);
  const byName = (name: string) => program.commands.find((c) => c.name() === name);
  byName('mcp')?.addHelpText('after', MCP_EXAMPLES);
  byName('sessions')?.addHelpText('after', SESSIONS_EXAMPLES);
}
