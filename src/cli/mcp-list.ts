import type { Command } from 'commander';
import type { McpServerStatus } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';
import type { Output } from './output.js';
import { describeFileServer, fileServers, targetOf } from './mcp-get.js';
import { signInNeeded, withMcp } from './mcp-session.js';
import { withSpinner } from './spinner.js';
import { mcpGroup } from './mcp-group.js';

const EXAMPLES = `
Examples:
  $ muster mcp list              # connect to every server and show its status
  $ muster mcp list --json
  $ muster mcp list --no-connect # only what the config files declare

Servers connect in parallel (at most 4 at a time), each with the library's connect timeout,
and are closed before the command ends. A server that fails shows 'failed' and its error; a
remote server that asks for a sign-in (never signed in, signed out, or its tokens stopped
working) shows 'needs-auth': run 'muster mcp auth <name>'.
Exit codes: 0 listed (whatever the statuses), 2 an invalid config file.`;

/** A status as the CLI shows it: a server in `needs-auth` names the command that signs it in. */
function cliStatus(s: McpServerStatus): McpServerStatus {
  if (s.status !== 'needs-auth') return s;
  return {
    ...s,
    error: { code: s.error?.code ?? 'MCP_AUTH_REQUIRED', message: signInNeeded(s.name) },
  };
}

function statusView(s: McpServerStatus): Record<string, unknown> {
  return {
    name: s.name,
    scope: s.source,
    type: s.type,
    status: s.status,
    ...(s.protocolVersion !== undefined ? { protocolVersion: s.protocolVersion } : {}),
    ...(s.era !== undefined ? { era: s.era } : {}),
    tools: s.tools.map((t) => t.originalName),
    ...(s.error ? { error: s.error } : {}),
  };
}

function color(out: Output, status: string): string {
  const style = status === 'connected' ? 'green' : status === 'failed' ? 'red' : 'yellow';
  return out.paint(style, status);
}

/** `muster mcp list`: every declared server, after a real connect (or only the files). */
export function mcpListCommand(program: Command, ctx: CliContext): void {
  mcpGroup(program)
    .command('list')
    .description("list the declared MCP servers with each one's status after connecting")
    .option('--no-connect', 'do not connect: only show what the config files declare')
    .addHelpText('after', EXAMPLES)
    .action(async (o: { connect: boolean }) => {
      const out = ctx.output();
      if (!o.connect) {
        const servers = fileServers(ctx);
        if (out.options.json) out.json({ servers: servers.map(describeFileServer) });
        else if (servers.length === 0) out.line('No MCP servers declared.');
        for (const s of servers)
          out.line(`${s.name}  ${s.scope}  ${s.config.type ?? 'stdio'}  ${targetOf(s)}`);
        return;
      }
      const statuses = await withSpinner(ctx.io, out.options, 'Connecting to the MCP servers', () =>
        withMcp(ctx, async (manager) => {
          await manager.connectAll();
          return manager.list().map(cliStatus);
        }),
      );
      if (out.options.json) {
        out.json({ servers: statuses.map(statusView) });
        return;
      }
      if (statuses.length === 0) out.line('No MCP servers declared.');
      for (const s of statuses) {
        const tools = s.status === 'connected' ? `  ${s.tools.length} tools` : '';
        out.line(
          `${out.paint('bold', s.name)}  ${s.source}  ${s.type}  ${color(out, s.status)}${tools}`,
        );
        if (s.error) out.line(`  ${s.error.code}: ${s.error.message}`);
      }
    });
}
