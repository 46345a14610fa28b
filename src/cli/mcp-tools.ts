import type { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import { withMcp } from './mcp-session.js';
import { withSpinner } from './spinner.js';
import { mcpGroup } from './mcp-group.js';

const EXAMPLES = `
Examples:
  $ muster mcp tools everything
  $ muster mcp tools docs --json | jq '.tools[].name'

Connects to the one server, lists every tool (all pages) and closes it again.
'modelName' is the name an agent's model sees (mcp__<server>__<tool>).
Exit codes: 0 listed, 2 not declared or an invalid file, 3 the server failed, 4 it needs a login.`;

/** `muster mcp tools`: a server's tools with annotations and schemas, after a real connect. */
export function mcpToolsCommand(program: Command, ctx: CliContext): void {
  mcpGroup(program)
    .command('tools')
    .description('connect to an MCP server and list its tools with annotations and input schemas')
    .argument('<name>', 'the server')
    .addHelpText('after', EXAMPLES)
    .action(async (name: string) => {
      const out = ctx.output();
      const tools = await withSpinner(ctx.io, out.options, `Connecting to '${name}'`, () =>
        withMcp(ctx, async (manager) => {
          const listed = await manager.listTools(name);
          const names = new Map(
            (manager.list().find((s) => s.name === name)?.tools ?? []).map((t) => [
              t.originalName,
              t.name,
            ]),
          );
          return listed.map((t) => ({
            name: t.name,
            modelName: names.get(t.name) ?? `mcp__${name}__${t.name}`,
            ...(t.title !== undefined ? { title: t.title } : {}),
            ...(t.description !== undefined ? { description: t.description } : {}),
            ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
            inputSchema: t.inputSchema,
            ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}),
          }));
        }),
      );
      if (out.options.json) {
        out.json({ server: name, tools });
        return;
      }
      if (tools.length === 0) out.line(`'${name}' has no tools.`);
      for (const t of tools) {
        const hints = Object.entries(t.annotations ?? {})
          .filter(([k, v]) => k !== 'title' && v === true)
          .map(([k]) => k);
        out.line(
          `${out.paint('bold', t.name)}${hints.length > 0 ? `  [${hints.join(', ')}]` : ''}`,
        );
        if (t.description) out.line(`  ${t.description.split('\n')[0]}`);
        const props = Object.keys((t.inputSchema.properties as object | undefined) ?? {});
        const required = new Set((t.inputSchema.required as string[] | undefined) ?? []);
        if (props.length > 0)
          out.line(`  args: ${props.map((p) => (required.has(p) ? p : `${p}?`)).join(', ')}`);
      }
    });
}
