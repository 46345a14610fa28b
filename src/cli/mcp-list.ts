import type { Command } from 'commander';
import type { McpServerStatus } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';
import { inCliTerms } from './cli-terms.js';
import type { Output } from './output.js';
import { describeFileServer, fileServers, targetOf } from './mcp-get.js';
import { signInNeeded, withMcp } from './mcp-session.js';
import { endedServerStderr, stderrLines } from './server-stderr.js';
import type { ServerStderr } from './server-stderr.js';
import { withSpinner } from './spinner.js';
import { mcpGroup } from './mcp-group.js';
import { textTable } from './text-table.js';

const EXAMPLES = `
Examples:
  $ muster mcp list              # connect to every server and show its status
  $ muster mcp list --json
  $ muster mcp list --no-connect # only what the config files declare

Servers connect in parallel (at most 4 at a time), each with the library's connect timeout,
and are closed before the command ends. A server that fails shows 'failed' and its error;
a stdio server whose process ended also shows the end of its stderr (secrets masked). A
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

/** A server's status after connecting, and the stderr its process left if it ended. */
interface Listed {
  readonly status: McpServerStatus;
  readonly stderr: ServerStderr | undefined;
}

function statusView({ status: s, stderr }: Listed): Record<string, unknown> {
  return {
    name: s.name,
    scope: s.source,
    type: s.type,
    status: s.status,
    ...(s.protocolVersion !== undefined ? { protocolVersion: s.protocolVersion } : {}),
    ...(s.era !== undefined ? { era: s.era } : {}),
    tools: s.tools.map((t) => t.originalName),
    ...(s.error ? { error: { ...s.error, message: inCliTerms(s.error.message) } } : {}),
    ...(stderr ? { stderrTail: stderr.tail } : {}),
  };
}

function color(out: Output, status: string): string {
  const style = status === 'connected' ? 'green' : status === 'failed' ? 'red' : 'yellow';
  return out.paint(style, status);
}

/**
 * The human `mcp list` table: name, scope, transport, status and tool count in aligned
 * columns (colors do not count in the widths); a server's error on the line below it.
 */
export function statusLines(
  out: Output,
  statuses: readonly McpServerStatus[],
  stderrOf: (name: string) => ServerStderr | undefined = () => undefined,
): string[] {
  const table = textTable(
    ['NAME', 'SCOPE', 'TYPE', 'STATUS', 'TOOLS'],
    statuses.map((s) => [
      { text: s.name, paint: (t: string) => out.paint('bold', t) },
      s.source,
      s.type,
      { text: s.status, paint: (t: string) => color(out, t) },
      s.status === 'connected' ? String(s.tools.length) : '',
    ]),
  );
  const lines = [table[0]!];
  statuses.forEach((s, i) => {
    lines.push(table[i + 1]!);
    if (s.error) lines.push(`  ${s.error.code}: ${inCliTerms(s.error.message)}`);
    const stderr = stderrOf(s.name);
    if (stderr) for (const line of stderrLines(stderr)) lines.push(out.paint('dim', line));
  });
  return lines;
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
        else
          for (const line of textTable(
            ['NAME', 'SCOPE', 'TYPE', 'TARGET'],
            servers.map((s) => [s.name, s.scope, s.config.type ?? 'stdio', targetOf(s)]),
          ))
            out.line(line);
        return;
      }
      const statuses = await withSpinner(ctx.io, out.options, 'Connecting to the MCP servers', () =>
        withMcp(ctx, async (manager) => {
          await manager.connectAll();
          return manager.list().map(
            (status): Listed => ({
              status: cliStatus(status),
              stderr:
                status.status === 'failed'
                  ? endedServerStderr(status.name, (name) => manager.diagnostics(name))
                  : undefined,
            }),
          );
        }),
      );
      if (out.options.json) {
        out.json({ servers: statuses.map(statusView) });
        return;
      }
      if (statuses.length === 0) out.line('No MCP servers declared.');
      else
        for (const line of statusLines(
          out,
          statuses.map((l) => l.status),
          (name) => statuses.find((l) => l.status.name === name)?.stderr,
        ))
          out.line(line);
    });
}
