import { resolve } from 'node:path';
import type { Command } from 'commander';
import { MusterError } from '../errors/index.js';
import {
  MCP_CONFIG_SCOPES,
  checkMcpFileServer,
  readMcpConfigFile,
  sameMcpDeclaration,
} from '../mcp/index.js';
import type { McpConfigScope, McpFileServer, McpServerConfig } from '../mcp/index.js';
import type { CliContext } from './cli-context.js';
import { scopePath, scopesOf } from './mcp-args.js';
import { readConfigForEdit, writeConfigFile } from './mcp-config-edit.js';
import { IMPORT_FORMATS, readImportSource, translateEntry } from './mcp-import-source.js';
import type { ImportSource } from './mcp-import-source.js';
import { mcpGroup } from './mcp-group.js';
import { findVariableUses } from './variable-references.js';
import type { VariableUse } from './variable-references.js';

interface ImportOptions {
  from?: string;
  scope: string;
}

const EXAMPLES = `
Examples:
  $ muster mcp import .mcp.json
  $ muster mcp import .vscode/mcp.json
  $ muster mcp import .cursor/mcp.json --scope user
  $ muster mcp import ~/.config/Claude/claude_desktop_config.json --scope user
  $ muster mcp import servers.json --from vscode

Formats: claude (Claude Code's .mcp.json), claude-desktop (claude_desktop_config.json),
cursor (.cursor/mcp.json), vscode (.vscode/mcp.json); without --from, the file's name and
content tell. Each entry is checked as createAgent checks it; the file is written once, whole
and atomically, to <workdir>/.muster/mcp.json (--scope project, the default) or
MUSTER_HOME/mcp.json (--scope user). Muster never expands variables: an entry holding \${...}
is skipped and listed (the field and the variable's name, never a value); declare it with
'muster mcp add' and the value, or from the host program (mcpServers, agent.mcp.register()).
Exit codes: 0 imported (skipped entries are listed), 2 invalid input or a name declared
differently (nothing is written).`;

/** A server the import leaves out, and the fields that name variables. */
interface Skipped {
  readonly name: string;
  readonly fields: readonly VariableUse[];
}

/** What an import found: entries to write, already there, and skipped. */
interface ImportPlan {
  readonly added: Record<string, McpServerConfig>;
  readonly unchanged: string[];
  readonly skipped: Skipped[];
}

function conflict(name: string, source: ImportSource, where: McpFileServer): MusterError {
  return new MusterError(
    'INVALID_CONFIGURATION',
    `MCP server '${name}' is declared differently in the ${where.scope} config (${where.path}) and in the file to import ${source.path}: run 'muster mcp remove ${name} --scope ${where.scope}' first, or rename it in ${source.path}. Nothing was written.`,
    { details: { server: name, sources: [where.path, source.path] } },
  );
}

/** Checks an entry as loading would, with what to do when it is refused. */
function checkEntry(
  name: string,
  entry: unknown,
  source: ImportSource,
  scope: McpConfigScope,
): McpServerConfig {
  try {
    return checkMcpFileServer(
      name,
      translateEntry(entry),
      scope,
      `the file to import ${source.path}`,
    );
  } catch (err) {
    if (!MusterError.isInstance(err)) throw err;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${err.message.replace(/\.$/, '')}. Fix or rename the entry in ${source.path}, or declare the server with 'muster mcp add'. Nothing was written.`,
      { cause: err, details: err.details },
    );
  }
}

/** Sorts the source's entries into added, unchanged and skipped; throws before any write. */
function planImport(
  source: ImportSource,
  scope: McpConfigScope,
  target: readonly McpFileServer[],
  others: readonly McpFileServer[],
): ImportPlan {
  const plan: ImportPlan = { added: {}, unchanged: [], skipped: [] };
  for (const [name, entry] of Object.entries(source.entries)) {
    const fields = findVariableUses(entry);
    if (fields.length > 0) {
      plan.skipped.push({ name, fields });
      continue;
    }
    const config = checkEntry(name, entry, source, scope);
    const here = target.find((s) => s.name === name);
    if (here && !sameMcpDeclaration(here.config, config)) throw conflict(name, source, here);
    const there = others.find((s) => s.name === name);
    if (there && !sameMcpDeclaration(there.config, config)) throw conflict(name, source, there);
    if (here) plan.unchanged.push(name);
    else plan.added[name] = config;
  }
  return plan;
}

function printPlan(
  ctx: CliContext,
  source: ImportSource,
  scope: McpConfigScope,
  path: string,
  plan: ImportPlan,
): void {
  const out = ctx.output();
  const imported = Object.entries(plan.added).map(([name, c]) => ({
    name,
    type: c.type ?? 'stdio',
  }));
  if (out.options.json) {
    out.json({
      file: source.path,
      from: source.format,
      scope,
      path,
      imported,
      unchanged: plan.unchanged,
      skipped: plan.skipped,
    });
    return;
  }
  const count = (n: number) => `${n} MCP server${n === 1 ? '' : 's'}`;
  out.line(
    imported.length > 0
      ? `Imported ${count(imported.length)} from ${source.path} (${source.format}) into the ${scope} config (${path}): ${imported.map((s) => `${s.name} (${s.type})`).join(', ')}.`
      : `Nothing new to write from ${source.path} (${source.format}); the ${scope} config (${path}) is unchanged.`,
  );
  if (plan.unchanged.length > 0)
    out.line(`Already declared identically, left as they are: ${plan.unchanged.join(', ')}.`);
  if (plan.skipped.length === 0) return;
  out.line(
    `Skipped ${count(plan.skipped.length)} whose entry uses variables, which Muster never expands:`,
  );
  for (const s of plan.skipped)
    out.line(
      `  ${s.name}: ${s.fields.map((f) => `${f.field} uses ${f.variables.join(', ')}`).join('; ')}`,
    );
  out.line(
    "Declare each with its value: 'muster mcp add <name> --scope user ...' (keep secrets out of the project file), or from the host program (the mcpServers option, or agent.mcp.register()).",
  );
}

/** `muster mcp import`: copies other tools' MCP server declarations into a Muster config file. */
export function mcpImportCommand(program: Command, ctx: CliContext): void {
  mcpGroup(program)
    .command('import')
    .description("import MCP servers from Claude Code, Claude Desktop, Cursor or VS Code's file")
    .argument('<file>', 'the file to import (.mcp.json, claude_desktop_config.json, mcp.json)')
    .option(
      '-f, --from <format>',
      `the file's format: ${IMPORT_FORMATS.join(', ')} (default: detected)`,
    )
    .option(
      '-s, --scope <scope>',
      'project (<workdir>/.muster/mcp.json) or user (MUSTER_HOME/mcp.json)',
      'project',
    )
    .addHelpText('after', EXAMPLES)
    .action((file: string, o: ImportOptions) => {
      const [scope] = scopesOf(o.scope) as [McpConfigScope];
      const path = scopePath(ctx, scope);
      const source = readImportSource(resolve(ctx.io.cwd, file), o.from);
      const edit = readConfigForEdit(path, scope);
      const target = readMcpConfigFile(path, scope);
      const others = MCP_CONFIG_SCOPES.filter((s) => s !== scope).flatMap((s) =>
        readMcpConfigFile(scopePath(ctx, s), s),
      );
      const plan = planImport(source, scope, target, others);
      if (Object.keys(plan.added).length > 0)
        writeConfigFile(edit, { ...edit.servers, ...plan.added }, scope);
      printPlan(ctx, source, scope, path, plan);
    });
}
