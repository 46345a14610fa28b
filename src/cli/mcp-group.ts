import type { Command } from 'commander';

/** The `muster mcp` command that several groups add subcommands to (made on first use). */
export function mcpGroup(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'mcp') ??
    program.command('mcp').description('manage MCP servers: add, list, inspect, call, sign in')
  );
}
