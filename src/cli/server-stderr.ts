import { McpError, MusterError } from '../errors/index.js';
import type { McpServerDiagnostics } from '../mcp/index.js';

/**
 * What a stdio server wrote on stderr before its process ended, redacted by the library
 * (`diagnostics(name)`: its env values and everything token-shaped are masked). The CLI prints
 * it under the error or status of a server that crashed, so the user sees why.
 */
export interface ServerStderr {
  readonly server: string;
  /** The redacted tail of the process's stderr (at most the library's ring, 8 KiB). */
  readonly tail: string;
}

/** How many lines of a tail are printed (the last ones). */
const MAX_LINES = 20;

const attached = new WeakMap<object, ServerStderr>();

/**
 * The stderr tail of `server`'s latest process when that process has ended and wrote
 * something; `undefined` for a running process, another transport or an unknown name.
 */
export function endedServerStderr(
  server: string,
  diagnose: (name: string) => McpServerDiagnostics,
): ServerStderr | undefined {
  let diagnostics: McpServerDiagnostics;
  try {
    diagnostics = diagnose(server);
  } catch {
    return undefined;
  }
  const tail = diagnostics.stderrTail.trim();
  return diagnostics.exit === undefined || tail === '' ? undefined : { server, tail };
}

/** The server an error is about (`McpError.server`, else `details.server`), if any. */
export function serverOfError(err: unknown): string | undefined {
  if (McpError.isInstance(err) && err.server !== undefined) return err.server;
  if (!MusterError.isInstance(err)) return undefined;
  const server = (err.details as { server?: unknown } | undefined)?.server;
  return typeof server === 'string' ? server : undefined;
}

/** Keeps `stderr` with `err`, for the command's failure report to print under the error. */
export function attachServerStderr(err: unknown, stderr: ServerStderr | undefined): void {
  if (stderr !== undefined && typeof err === 'object' && err !== null) attached.set(err, stderr);
}

/** The stderr kept with `err` by {@link attachServerStderr}. */
export function serverStderrOf(err: unknown): ServerStderr | undefined {
  return typeof err === 'object' && err !== null ? attached.get(err) : undefined;
}

/** The tail as lines to print: a heading, then its last lines, each indented. */
export function stderrLines(stderr: ServerStderr, indent = '  '): string[] {
  const lines = stderr.tail.split(/\r?\n/);
  const shown = lines.slice(-MAX_LINES);
  const cut = lines.length - shown.length;
  return [
    `${indent}stderr of '${stderr.server}' (redacted${cut > 0 ? `, last ${shown.length} lines` : ''}):`,
    ...shown.map((line) => `${indent}  | ${printable(line)}`),
  ];
}

/** A server's bytes never drive the terminal: control characters (but tab) are shown as '?'. */
function printable(line: string): string {
  let out = '';
  for (const ch of line) {
    const c = ch.codePointAt(0)!;
    out += (c < 0x20 && c !== 0x09) || (c >= 0x7f && c <= 0x9f) ? '?' : ch;
  }
  return out;
}
