import type { Command } from 'commander';
import { MusterError } from '../errors/index.js';
import { readMcpConfigFile, redactMcpServerConfig } from '../mcp/index.js';
import type { McpFileServer } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';
import { scopePath, scopesOf } from './mcp-args.js';
import { mcpGroup } from './mcp-group.js';

/** Every declaration of the scopes (all of them when `scope` is undefined), project first. */
export function fileServers(ctx: CliContext, scope?: string): McpFileServer[] {
  return scopesOf(scope).flatMap((s) => readMcpConfigFile(scopePath(ctx, s), s));
}

/** A declaration as printed: where it is and its redacted config. */
export function describeFileServer(s: McpFileServer): {
  name: string;
  scope: string;
  path: string;
  type: string;
  config: Record<string, unknown>;
} {
  return {
    name: s.name,
    scope: s.scope,
    path: s.path,
    type: s.config.type ?? 'stdio',
    config: redactMcpServerConfig(s.config),
  };
}

/** One line saying what a declaration starts or reaches (secrets redacted). */
export function targetOf(s: McpFileServer): string {
  const c = redactMcpServerConfig(s.config);
  if (typeof c['url'] === 'string') return c['url'];
  return [c['command'], ...((c['args'] as string[] | undefined) ?? [])].join(' ');
}

const EXAMPLES = `
Examples:
  $ muster mcp get everything
  $ muster mcp get docs --json

Header and env values are never printed (shown as <redacted>). Nothing is started.
Exit codes: 0 found, 2 not declared or an invalid file.`;

/** `muster mcp get`: one server's declaration, secrets redacted. */
export function mcpGetCommand(program: Command, ctx: CliContext): void {
  mcpGroup(program)
    .command('get')
    .description("show one MCP server's declaration and where it is (secrets redacted)")
    .argument('<name>', 'the server')
    .option('-s, --scope <scope>', 'project or user (default: both)')
    .addHelpText('after', EXAMPLES)
    .action((name: string, o: { scope?: string }) => {
      const found = fileServers(ctx, o.scope).filter((s) => s.name === name);
      const first = found[0];
      if (!first)
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `No MCP server '${name}' in the ${o.scope ?? 'project or user'} config: add it with 'muster mcp add ${name} ...'.`,
          { details: { server: name } },
        );
      const out = ctx.output();
      const server = { ...describeFileServer(first), scopes: found.map((s) => s.scope) };
      if (out.options.json) {
        out.json({ server });
        return;
      }
      out.line(out.paint('bold', name));
      out.line(`  scope:  ${found.map((s) => `${s.scope} (${s.path})`).join(', ')}`);
      out.line(`  type:   ${String(server.type)}`);
      for (const [key, value] of Object.entries(server.config)) {
        if (key === 'type') continue;
        out.line(
          `  ${`${key}:`.padEnd(7)} ${typeof value === 'string' ? value : JSON.stringify(value)}`,
        );
      }
    });
}
