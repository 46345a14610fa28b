import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MusterError } from '../../errors/index.js';
import { parseConfigFile, parseServerConfig } from './config-schema.js';
import type {
  McpServerConfig,
  McpServerSource,
  McpStdioServerConfig,
  McpTransportType,
} from '../contracts/config-types.js';
import { checkStdioConfig } from '../transports/stdio-checks.js';

/** One validated server declaration and where it came from. */
export interface ServerDeclaration {
  readonly name: string;
  readonly source: McpServerSource;
  /** Human-readable origin, e.g. the file path, for error messages. */
  readonly where: string;
  readonly config: McpServerConfig;
  /** The normalized declaration: equal keys deduplicate, different keys conflict. */
  readonly key: string;
}

/** The transport type of a declaration (`stdio` when `type` is absent). */
export function transportOf(config: McpServerConfig): McpTransportType {
  return config.type ?? 'stdio';
}

const sdkIds = new WeakMap<object, number>();
let nextSdkId = 1;

/** A canonical string of a declaration; in-process servers compare by identity. */
export function normalizedKey(config: McpServerConfig): string {
  if (config.type === 'sdk') {
    let id = sdkIds.get(config.server);
    if (id === undefined) sdkIds.set(config.server, (id = nextSdkId++));
    return `sdk#${id}`;
  }
  if (config.type === 'http' && config.auth?.type === 'provider') {
    // a provider is a live object (it may even be cyclic): compare it by identity
    let id = sdkIds.get(config.auth.provider);
    if (id === undefined) sdkIds.set(config.auth.provider, (id = nextSdkId++));
    return canonical({ ...config, auth: { type: 'provider', provider: `provider#${id}` } });
  }
  return canonical({ ...config, type: transportOf(config) });
}

/** Deeper than any valid declaration nests (its records of strings are a few levels down). */
const MAX_CANONICAL_DEPTH = 16;

function canonical(value: unknown, depth = 0): string {
  if (depth > MAX_CANONICAL_DEPTH)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `An MCP server declaration nests deeper than ${MAX_CANONICAL_DEPTH} levels: declarations hold strings, lists and records of strings.`,
    );
  const inner = (v: unknown) => canonical(v, depth + 1);
  if (Array.isArray(value)) return `[${value.map(inner).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${inner(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Reads one config file once; a missing file is no declarations. Variables are never expanded. */
export function readConfigFile(path: string, source: 'project' | 'user'): ServerDeclaration[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Cannot read the MCP config file ${path}: ${(err as Error).message}.`,
      { cause: err },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The MCP config file ${path} is not valid JSON: ${(err as Error).message}.`,
      { cause: err },
    );
  }
  const servers = parseConfigFile(json, `MCP config file ${path}`);
  return Object.entries(servers).map(([name, value]) => declare(name, value, source, path));
}

/**
 * Validates one declaration from a source: its shape, and for a stdio server what `spawn`
 * would refuse only when it starts (see `checkStdioConfig`), so a bad declaration fails now.
 */
export function declare(
  name: string,
  value: unknown,
  source: McpServerSource,
  where: string,
): ServerDeclaration {
  const config = parseServerConfig(name, value, source, where);
  if (transportOf(config) === 'stdio') {
    try {
      checkStdioConfig(name, config as McpStdioServerConfig);
    } catch (err) {
      const e = err as MusterError<'INVALID_CONFIGURATION'>;
      throw new MusterError('INVALID_CONFIGURATION', `${where}: ${e.message}.`, {
        cause: err,
        details: { ...e.details, source },
      });
    }
  }
  return { name, source, where, config, key: normalizedKey(config) };
}

/** Where to look for declarations. */
export interface DeclarationSources {
  readonly workdir: string;
  readonly home: string;
  readonly strictConfig: boolean;
  readonly mcpServers: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Gathers declarations from the project file, the user file (both skipped in strict mode) and
 * the constructor, and merges them: different names merge, identical normalized declarations
 * deduplicate, and two different declarations of one name fail with `INVALID_CONFIGURATION`
 * naming both sources.
 */
export function collectDeclarations(sources: DeclarationSources): ServerDeclaration[] {
  const all: ServerDeclaration[] = [];
  if (!sources.strictConfig) {
    all.push(...readConfigFile(join(sources.workdir, '.muster', 'mcp.json'), 'project'));
    all.push(...readConfigFile(join(sources.home, 'mcp.json'), 'user'));
  }
  if (sources.mcpServers !== undefined) {
    if (
      typeof sources.mcpServers !== 'object' ||
      sources.mcpServers === null ||
      Array.isArray(sources.mcpServers)
    ) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'mcpServers must be an object of { name: declaration }.',
      );
    }
    for (const [name, value] of Object.entries(sources.mcpServers))
      all.push(declare(name, value, 'options', 'createAgent({ mcpServers })'));
  }
  return mergeDeclarations(all);
}

/** Merges declarations by name (see {@link collectDeclarations}). */
export function mergeDeclarations(declarations: readonly ServerDeclaration[]): ServerDeclaration[] {
  const byName = new Map<string, ServerDeclaration>();
  for (const d of declarations) {
    const existing = byName.get(d.name);
    if (!existing) byName.set(d.name, d);
    else if (existing.key !== d.key) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `MCP server '${d.name}' is declared differently in ${existing.where} (${existing.source}) and in ${d.where} (${d.source}): rename one or make them identical.`,
        { details: { server: d.name, sources: [existing.source, d.source] } },
      );
    }
  }
  return [...byName.values()];
}
