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

function entryOf(file: string, name: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const servers = (JSON.parse(text) as { mcpServers?: Record<string, unknown> }).mcpServers ?? {};
  const entry = Object.hasOwn(servers, name) ? servers[name] : undefined;
  return typeof entry === 'object' && entry !== null
    ? (entry as Record<string, unknown>)
    : undefined;
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
  await new McpClientManager({}, { workdir }).close();
  const files = [
    { source: 'project' as const, file: join(workdir, '.muster', 'mcp.json') },
    { source: 'user' as const, file: join(home, 'mcp.json') },
  ];
  for (const { source, file } of files) {
    const entry = entryOf(file, name);
    if (entry === undefined) continue;
    if (entry['type'] !== 'http' || typeof entry['url'] !== 'string') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server '${name}' in ${file} is a ${String(entry['type'] ?? 'stdio')} server: only remote (http) servers sign in with OAuth.`,
        { details: { server: name } },
      );
    }
    return { name, url: entry['url'], source, file };
  }
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `No MCP server '${name}' in ${files.map((f) => f.file).join(' or ')}: add it first with \`muster mcp add ${name} --transport http <url>\`.`,
    { details: { server: name } },
  );
}
