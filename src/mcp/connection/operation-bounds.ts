import type { McpOptions } from '../contracts/config-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { ServerEntry } from './server-entry.js';

/** The bounds of one operation. */
export interface OperationOptions {
  readonly signal: AbortSignal;
  /** Per-request timeout (reset by progress); default: the server's or `mcp.operation`'s. */
  readonly timeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
}

/** The bounds an operation runs with, defaults applied. */
export interface ResolvedOperationOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly maxTotalTimeoutMs?: number;
}

/**
 * The bounds one operation runs with: its own timeout, else the server's (`timeoutMs` of an
 * http declaration), else `mcp.operation`'s, else the default; the total timeout likewise.
 */
export function resolveBounds(
  entry: ServerEntry,
  options: OperationOptions,
  defaults: McpOptions['operation'],
): ResolvedOperationOptions {
  const timeoutMs =
    options.timeoutMs ??
    (entry.config.type === 'http' ? entry.config.timeoutMs : undefined) ??
    defaults?.timeoutMs ??
    MCP_DEFAULTS.timeoutMs;
  const maxTotal = options.maxTotalTimeoutMs ?? defaults?.maxTotalTimeoutMs;
  return {
    signal: options.signal,
    timeoutMs,
    ...(maxTotal !== undefined ? { maxTotalTimeoutMs: maxTotal } : {}),
  };
}
