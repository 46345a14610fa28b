import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MusterError } from '../errors/index.js';
import { McpClientManager } from '../mcp/index.js';

/** The remote server `muster mcp auth|logout <name>` signs in to, as the config files declare it. */
export interface AuthTarget {
  readonly name: string;
  /** Its `url`: the OAuth resource, and `mcp.oauth[name].serverUrl`. */
  readonly url: string;
  /** Which file declares it. */
  readonly source: 'project' | 'user';
  readonly file: string;
}

/** The `mcpServers` of a (validated) config file; none when the file is missing. */
function serversOf(file: string): Record<string, Record<string, unknown>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const servers = (JSON.parse(text) as { mcpServers?: Record<string, unknown> }).mcpServers ?? {};
  const result: Record<string, Record<string, unknown>> = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (typeof entry === 'object' && entry !== null)
      result[name] = entry as Record<string, unknown>;
  }
  return result;
}

function configFiles(workdir: string, home: string) {
  return [
    { source: 'project' as const, file: join(workdir, '.muster', 'mcp.json') },
    { source: 'user' as const, file: join(home, 'mcp.json') },
  ];
}

/**
 * Every `http` server of the project and user files (the project's first when both declare
 * a name), after the library validated both files (a manager is built; nothing starts).
 *
 * @throws MusterError `INVALID_CONFIGURATION` for an invalid file.
 */
export async function remoteDeclarations(workdir: string, home: string): Promise<AuthTarget[]> {
  await new McpClientManager({}, { workdir }).close();
  const found = new Map<string, AuthTarget>();
  for (const { source, file } of configFiles(workdir, home)) {
    for (const [name, entry] of Object.entries(serversOf(file))) {
      if (found.has(name) || entry['type'] !== 'http' || typeof entry['url'] !== 'string') continue;
      found.set(name, { name, url: entry['url'], source, file });
    }
  }
  return [...found.values()];
}

/**
 * Finds the `http` server `name` in the project file (`<workdir>/.muster/mcp.json`), else
 * the user file (`<home>/mcp.json`). Both files are first validated by the library (a
 * manager is built and nothing is started), so what is read here is a valid declaration.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for an invalid file, an unknown name, or a
 *   server that is not `http` (only remote servers sign in with OAuth).
 */
export async function findAuthTarget(
  name: string,
  workdir: string,
  home: string,
): Promise<AuthTarget> {
  const remote = (await remoteDeclarations(workdir, home)).find((d) => d.name === name);
  if (remote !== undefined) return remote;
  const files = configFiles(workdir, home);
  for (const { file } of files) {
    const entry = serversOf(file)[name];
    if (entry === undefined) continue;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Server '${name}' in ${file} is a ${String(entry['type'] ?? 'stdio')} server: only remote (http) servers sign in with OAuth.`,
      { details: { server: name } },
    );
  }
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `No MCP server '${name}' in ${files.map((f) => f.file).join(' or ')}: add it first with \`muster mcp add ${name} --transport http <url>\`.`,
    { details: { server: name } },
  );
}
