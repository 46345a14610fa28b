import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { MusterError } from '../errors/index.js';

// The MCP files of other tools that `muster mcp import` reads, and how their entries become
// Muster declarations. Checking a declaration is the library's job (`checkMcpFileServer`).

/** The formats `muster mcp import --from` takes. */
export const IMPORT_FORMATS = ['claude', 'claude-desktop', 'cursor', 'vscode'] as const;

/** One of {@link IMPORT_FORMATS}. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A file to import: its format and its server entries, as written there (not checked yet). */
export interface ImportSource {
  readonly path: string;
  readonly format: ImportFormat;
  readonly entries: Readonly<Record<string, unknown>>;
}

/** The top-level keys of each format, `undefined` when the file holds other settings too. */
const TOP_LEVEL: Readonly<Record<ImportFormat, readonly string[] | undefined>> = {
  claude: ['mcpServers'],
  // claude_desktop_config.json is the whole app's settings file: only mcpServers is read
  'claude-desktop': undefined,
  cursor: ['mcpServers'],
  vscode: ['servers', 'inputs'],
};

const FORMAT_NAMES: Readonly<Record<ImportFormat, string>> = {
  claude: "Claude Code's .mcp.json",
  'claude-desktop': "Claude Desktop's claude_desktop_config.json",
  cursor: "Cursor's mcp.json",
  vscode: "VS Code's mcp.json",
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(message: string, field?: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, {
    details: field === undefined ? {} : { field },
  });
}

function parseFormat(from: string): ImportFormat {
  const format = IMPORT_FORMATS.find((f) => f === from);
  if (format) return format;
  throw invalid(
    `Unknown --from ${JSON.stringify(from)}: use ${IMPORT_FORMATS.join(', ')}, or leave --from out to detect it.`,
    'from',
  );
}

/**
 * The format of a file: its name when that is one tool's (`claude_desktop_config.json`,
 * `.vscode/mcp.json`, `.cursor/mcp.json`), else its content (`servers` is VS Code's,
 * `mcpServers` Claude Code's).
 */
function detectFormat(path: string, json: Record<string, unknown>): ImportFormat {
  const name = basename(path);
  const folder = basename(dirname(path));
  if (name === 'claude_desktop_config.json') return 'claude-desktop';
  if (folder === '.vscode') return 'vscode';
  if (folder === '.cursor') return 'cursor';
  if (Object.hasOwn(json, 'servers') && !Object.hasOwn(json, 'mcpServers')) return 'vscode';
  return 'claude';
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Cannot read the file to import ${path}${code ? ` (${code})` : ''}: give the path of an MCP config file.`,
      { cause: err, details: { field: 'file' } },
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    // the parser's message may quote the file's text (a secret, say): keep only the position
    const at = /at position (\d+)/.exec((err as Error).message)?.[1];
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The file to import ${path} is not valid JSON${at ? ` (at character ${at})` : ''}: fix it (comments and trailing commas are not JSON) and import again.`,
      { details: { field: 'file' } },
    );
  }
}

/**
 * Reads a file to import: JSON whose top level is the format's (the given one, or the one
 * detected), with its object of server entries.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when the file is unreadable, not JSON, or not
 *   in the format (unknown top-level keys, no server object).
 */
export function readImportSource(path: string, from: string | undefined): ImportSource {
  const wanted = from === undefined ? undefined : parseFormat(from);
  const json = readJson(path);
  if (!isPlainObject(json))
    throw invalid(
      `The file to import ${path} must be a JSON object ({ "mcpServers": { ... } }, or VS Code's { "servers": { ... } }).`,
      'file',
    );
  const format = wanted ?? detectFormat(path, json);
  const what = `${path} (${FORMAT_NAMES[format]})`;
  const known = TOP_LEVEL[format];
  const key = format === 'vscode' ? 'servers' : 'mcpServers';
  const unknown = known ? Object.keys(json).filter((k) => !known.includes(k)) : [];
  if (unknown.length > 0)
    throw invalid(
      `The file to import ${what} has unknown top-level key(s) ${unknown.join(', ')} (known: ${known!.join(', ')}): fix the file, or give its format with --from ${IMPORT_FORMATS.join('|')}.`,
      unknown[0],
    );
  const entries = json[key];
  if (!isPlainObject(entries))
    throw invalid(
      `The file to import ${what} needs "${key}": an object of { "<name>": { ... } }. Give its format with --from ${IMPORT_FORMATS.join('|')} if it is another tool's.`,
      key,
    );
  if (format === 'vscode' && json['inputs'] !== undefined && !Array.isArray(json['inputs']))
    throw invalid(`The file to import ${what}: "inputs" must be an array.`, 'inputs');
  return { path, format, entries };
}

/**
 * An entry as a Muster declaration: `type: "stdio"` is dropped (Muster's default), and a
 * `url` without `type` (Cursor's form, which leaves the transport to the client) is
 * Streamable HTTP. Every other key is kept, so the library's checks refuse the ones Muster
 * does not have (`envFile`, `oauth`, `sandbox`, ...).
 */
export function translateEntry(entry: unknown): unknown {
  if (!isPlainObject(entry)) return entry;
  const { type, ...rest } = entry;
  if (type === 'stdio') return rest;
  if (type === undefined && Object.hasOwn(rest, 'url') && !Object.hasOwn(rest, 'command'))
    return { type: 'http', ...rest };
  return entry;
}
