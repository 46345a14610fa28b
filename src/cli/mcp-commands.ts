import type { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import { mcpAddCommand } from './mcp-add.js';
import { mcpCallCommand } from './mcp-call.js';
import { mcpGetCommand } from './mcp-get.js';
import { mcpImportCommand } from './mcp-import.js';
import { mcpListCommand } from './mcp-list.js';
import { mcpRemoveCommand } from './mcp-remove.js';
import { mcpToolsCommand } from './mcp-tools.js';

/** `muster mcp add|import|remove|get|list|tools|call` (the sign-in commands are their own group). */
export function mcpCommands(program: Command, ctx: CliContext): void {
  mcpAddCommand(program, ctx);
  mcpImportCommand(program, ctx);
  mcpRemoveCommand(program, ctx);
  mcpGetCommand(program, ctx);
  mcpListCommand(program, ctx);
  mcpToolsCommand(program, ctx);
  mcpCallCommand(program, ctx);
}
