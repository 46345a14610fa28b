import type { Command } from 'commander';
import { MusterError } from '../errors/index.js';
import { MCP_CONFIG_SCOPES, checkMcpFileServer, readMcpConfigFile } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';
import { collect, parseEnv, parseHeaders, scopePath, scopesOf } from './mcp-args.js';
import { readConfigForEdit, writeConfigFile } from './mcp-config-edit.js';
import { mcpGroup } from './mcp-group.js';

interface AddOptions {
  transport: string;
  env: string[];
  header: string[];
  scope: string;
}

const EXAMPLES = `
Examples:
  $ muster mcp add everything -- npx -y @modelcontextprotocol/server-everything stdio
  $ muster mcp add files --env ROOT=/srv/data -- node ./files-server.js
  $ muster mcp add docs --scope user --transport http https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN"
  $ muster mcp add local --scope user --transport http http://127.0.0.1:3000/mcp

The declaration is checked as createAgent checks it, and written atomically to
<workdir>/.muster/mcp.json (--scope project, the default) or MUSTER_HOME/mcp.json (--scope user).
Values are stored verbatim: the shell expands "$TOKEN" above, so put secrets in the user file,
never in a project file that is committed.
Exit codes: 0 added, 2 invalid input or the name exists (nothing is written).`;

function usage(message: string, field: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, { details: { field } });
}

/** The declaration the command line describes (not validated yet). */
function declarationOf(target: readonly string[], o: AddOptions): Record<string, unknown> {
  const env = parseEnv(o.env);
  const headers = parseHeaders(o.header);
  if (o.transport === 'stdio') {
    if (headers)
      throw usage('--header is for http and sse servers; use --env for stdio.', 'headers');
    const [command, ...args] = target;
    if (command === undefined)
      throw usage(
        'Give the command after --: muster mcp add <name> -- <command> [args...].',
        'command',
      );
    return { command, ...(args.length > 0 ? { args } : {}), ...(env ? { env } : {}) };
  }
  if (o.transport === 'http' || o.transport === 'sse') {
    if (env) throw usage('--env is for stdio servers; use --header for http and sse.', 'env');
    if (target.length !== 1)
      throw usage(
        `Give exactly one URL: muster mcp add <name> --transport ${o.transport} <url>.`,
        'url',
      );
    return { type: o.transport, url: target[0], ...(headers ? { headers } : {}) };
  }
  throw usage(
    `Unknown transport ${JSON.stringify(o.transport)}: use stdio (the default), http or sse.`,
    'transport',
  );
}

/** `muster mcp add`: declares a server in the project or user config file. */
export function mcpAddCommand(program: Command, ctx: CliContext): void {
  mcpGroup(program)
    .command('add')
    .description('declare an MCP server in the project or user config file')
    .argument('<name>', "the server's name (1-24 letters, digits, _ or -, no __)")
    .argument('[target...]', 'stdio: the command and its arguments (after --); http/sse: the URL')
    .option('-t, --transport <type>', 'stdio, http or sse', 'stdio')
    .option(
      '-e, --env <KEY=VALUE>',
      'an environment variable for a stdio server (repeatable)',
      collect,
      [],
    )
    .option(
      '-H, --header <Name: value>',
      'a header for an http/sse server (repeatable)',
      collect,
      [],
    )
    .option(
      '-s, --scope <scope>',
      'project (<workdir>/.muster/mcp.json) or user (MUSTER_HOME/mcp.json)',
      'project',
    )
    .addHelpText('after', EXAMPLES)
    .action((name: string, target: string[], o: AddOptions) => {
      const [scope] = scopesOf(o.scope) as [(typeof MCP_CONFIG_SCOPES)[number]];
      const path = scopePath(ctx, scope);
      const config = checkMcpFileServer(name, declarationOf(target, o), scope, path);
      const file = readConfigForEdit(path, scope);
      if (Object.hasOwn(file.servers, name))
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `MCP server '${name}' already exists in the ${scope} config (${path}): run 'muster mcp remove ${name} --scope ${scope}' first.`,
          { details: { server: name, field: 'name' } },
        );
      for (const other of MCP_CONFIG_SCOPES.filter((s) => s !== scope)) {
        const otherPath = scopePath(ctx, other);
        if (readMcpConfigFile(otherPath, other).some((s) => s.name === name))
          throw new MusterError(
            'INVALID_CONFIGURATION',
            `MCP server '${name}' already exists in the ${other} config (${otherPath}): run 'muster mcp remove ${name} --scope ${other}' first, or pick another name.`,
            { details: { server: name, field: 'name' } },
          );
      }
      writeConfigFile(file, { ...file.servers, [name]: config }, scope);
      const type = config.type ?? 'stdio';
      const out = ctx.output();
      if (out.options.json) out.json({ added: { name, scope, type, path } });
      else out.line(`Added ${type} MCP server '${name}' to the ${scope} config (${path}).`);
    });
}
