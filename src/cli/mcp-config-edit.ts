import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MusterError } from '../errors/index.js';
import { readMcpConfigFile } from '../mcp/index.js';
import type { McpConfigScope } from '../mcp/index.js';

/** A config file as text: its servers (in file order), indentation and final newline. */
export interface ConfigFileText {
  readonly path: string;
  readonly exists: boolean;
  readonly servers: Record<string, unknown>;
  readonly indent: string;
  readonly finalNewline: boolean;
  readonly mode?: number;
}

/** The indentation of the first indented line (`'  '` when there is none). */
export function detectIndent(text: string): string {
  const match = /^[ \t]+(?=\S)/m.exec(text);
  return match ? match[0] : '  ';
}

/**
 * Reads a scope's file for editing. It must load as the library loads it (so an edit never
 * turns a broken file into a different broken one); a missing file is empty.
 */
export function readConfigForEdit(path: string, scope: McpConfigScope): ConfigFileText {
  readMcpConfigFile(path, scope);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return { path, exists: false, servers: {}, indent: '  ', finalNewline: true };
  }
  const json = JSON.parse(text) as { mcpServers: Record<string, unknown> };
  return {
    path,
    exists: true,
    servers: { ...json.mcpServers },
    indent: detectIndent(text),
    finalNewline: text.endsWith('\n'),
    mode: statSync(path).mode & 0o777,
  };
}

/**
 * Writes `servers` as the file's new content atomically (a temporary file in the same folder,
 * then a rename), with the file's indentation, final newline and mode; creates the folder.
 * A new user file is made readable by its owner only (it may hold header or env secrets).
 */
export function writeConfigFile(
  file: ConfigFileText,
  servers: Readonly<Record<string, unknown>>,
  scope: McpConfigScope,
): void {
  const dir = dirname(file.path);
  try {
    mkdirSync(dir, { recursive: true });
    const text =
      JSON.stringify({ mcpServers: servers }, null, file.indent) + (file.finalNewline ? '\n' : '');
    const tmp = join(dir, `.${basename(file.path)}.${randomBytes(6).toString('hex')}.tmp`);
    const mode = file.mode ?? (scope === 'user' ? 0o600 : 0o644);
    try {
      writeFileSync(tmp, text, { mode, flag: 'wx' });
      renameSync(tmp, file.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Cannot write the MCP config file ${file.path}: ${(err as Error).message}.`,
      { cause: err },
    );
  }
}
