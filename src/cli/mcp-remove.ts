import type { Command } from 'commander';
import { MusterError } from '../errors/index.js';
import type { McpConfigScope } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';
import { scopePath, scopesOf } from './mcp-args.js';
import { readConfigForEdit, writeConfigFile } from './mcp-config-edit.js';
import { mcpGroup } from './mcp-group.js';

const EXAMPLES = `
Examples:
  $ muster mcp remove everything
  $ muster mcp remove docs --scope user

Without --scope, the one config file that declares the server is edited; when both do,
say which with --scope. Other entries and the file's indentation are kept.
Exit codes: 0 removed, 2 not declared, declared in both scopes, or an invalid file.`;

/** `muster mcp remove`: deletes a server's declaration from its config file. */
export function mcpRemoveCommand(program: Command, ctx: CliContext): void {
  mcpGroup(program)
    .command('remove')
    .description('remove an MCP server from the project or user config file')
    .argument('<name>', 'the server to remove')
    .option('-s, --scope <scope>', 'project or user (default: the scope that declares it)')
    .addHelpText('after', EXAMPLES)
    .action((name: string, o: { scope?: string }) => {
      const holding = scopesOf(o.scope)
        .map((scope) => ({ scope, file: readConfigForEdit(scopePath(ctx, scope), scope) }))
        .filter(({ file }) => Object.hasOwn(file.servers, name));
      if (holding.length === 0)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `No MCP server '${name}' in the ${o.scope ?? 'project or user'} config: see 'muster mcp list --no-connect'.`,
          { details: { server: name } },
        );
      if (holding.length > 1)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `MCP server '${name}' is declared in both the project and the user config: add --scope project or --scope user.`,
          { details: { server: name, field: 'scope' } },
        );
      const { scope, file } = holding[0] as {
        scope: McpConfigScope;
        file: ReturnType<typeof readConfigForEdit>;
      };
      const servers = { ...file.servers };
      delete servers[name];
      writeConfigFile(file, servers, scope);
      const out = ctx.output();
      if (out.options.json) out.json({ removed: { name, scope, path: file.path } });
      else out.line(`Removed MCP server '${name}' from the ${scope} config (${file.path}).`);
    });
}
