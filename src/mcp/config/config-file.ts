import { join } from 'node:path';
import { MusterError } from '../../errors/index.js';
import { declare, normalizedKey, readConfigFile } from './config-sources.js';
import type { McpServerConfig } from '../contracts/config-types.js';
import { checkRemoteDeclaration } from './remote-checks.js';

/** Which config file a declaration lives in (SPEC 7.1). */
export type McpConfigScope = 'project' | 'user';

/** The scopes, in the order the registry reads them. */
export const MCP_CONFIG_SCOPES: readonly McpConfigScope[] = ['project', 'user'];

/** One declaration of a config file, validated as `createAgent` validates it. */
export interface McpFileServer {
  readonly name: string;
  readonly scope: McpConfigScope;
  /** The file it was read from. */
  readonly path: string;
  readonly config: McpServerConfig;
}

/**
 * Checks a scope given as text (from a command line, say).
 *
 * @throws MusterError `INVALID_CONFIGURATION` for anything but `project` or `user`.
 */
export function parseMcpConfigScope(value: string): McpConfigScope {
  if (value === 'project' || value === 'user') return value;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `Unknown MCP config scope ${JSON.stringify(value)}: use 'project' (<workdir>/.muster/mcp.json) or 'user' (MUSTER_HOME/mcp.json).`,
    { details: { field: 'scope' } },
  );
}

/** The file of a scope: `<workdir>/.muster/mcp.json` or `<home>/mcp.json`. */
export function mcpConfigPath(scope: McpConfigScope, workdir: string, home: string): string {
  return scope === 'project' ? join(workdir, '.muster', 'mcp.json') : join(home, 'mcp.json');
}

/**
 * Validates one declaration for a config file exactly as loading that file does (name rules,
 * shape, unknown keys, stdio spawn checks, remote URL and header checks), so that a file
 * holding it loads with `createAgent`. Returns the declaration.
 *
 * @throws MusterError `INVALID_CONFIGURATION` naming `where` and the problem (never a secret).
 */
export function checkMcpFileServer(
  name: string,
  value: unknown,
  scope: McpConfigScope,
  where: string,
): McpServerConfig {
  const d = declare(name, value, scope, where);
  checkRemoteDeclaration(d);
  return d.config;
}

/**
 * True when two declarations are the same once normalized (`type` defaulted, key order
 * ignored): loading both deduplicates them; different ones conflict (SPEC 7.1).
 */
export function sameMcpDeclaration(a: McpServerConfig, b: McpServerConfig): boolean {
  return normalizedKey(a) === normalizedKey(b);
}

/**
 * Reads and validates a scope's config file as `createAgent` does; a missing file has no
 * servers.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when the file would not load.
 */
export function readMcpConfigFile(path: string, scope: McpConfigScope): McpFileServer[] {
  return readConfigFile(path, scope).map((d) => {
    checkRemoteDeclaration(d);
    return { name: d.name, scope, path, config: d.config };
  });
}

const REDACTED = '<redacted>';

/**
 * A declaration safe to print: header and env values, a bearer token, URL credentials and
 * query values replaced by `<redacted>` (names and the rest kept).
 */
export function redactMcpServerConfig(config: McpServerConfig): Record<string, unknown> {
  if (config.type === 'sdk') return { type: 'sdk' };
  const out: Record<string, unknown> = { ...config };
  const mask = (o: Readonly<Record<string, string>>) =>
    Object.fromEntries(Object.keys(o).map((k) => [k, REDACTED]));
  if (config.type === 'http' || config.type === 'sse') {
    if (config.headers) out['headers'] = mask(config.headers);
    if (config.type === 'http' && config.auth) out['auth'] = { type: config.auth.type };
    out['url'] = redactUrl(config.url);
  } else if (config.env) {
    out['env'] = mask(config.env);
  }
  return out;
}

function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REDACTED;
  }
  if (parsed.username) parsed.username = 'redacted';
  if (parsed.password) parsed.password = 'redacted';
  for (const key of [...new Set(parsed.searchParams.keys())])
    parsed.searchParams.set(key, 'redacted');
  parsed.hash = '';
  return parsed.toString();
}
