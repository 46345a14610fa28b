import { mcpEvent } from '../contracts/mcp-defaults.js';
import type { Emit } from '../contracts/mcp-defaults.js';
import { describeError } from '../failures/mcp-errors.js';
import type { ServerEntry } from './server-entry.js';

/** Reports a transport or client error of `e` as a sanitized `mcp.diagnostic` event. */
export function emitDiagnostic(e: ServerEntry, error: unknown, emit: Emit): void {
  const err = (error ?? {}) as { name?: unknown; code?: unknown };
  const { message } = describeError(error, e.name, 'MCP_OPERATION_FAILED', e.secrets);
  emit(
    mcpEvent({
      type: 'mcp.diagnostic',
      server: e.name,
      errorName: typeof err.name === 'string' ? err.name : 'Error',
      ...(typeof err.code === 'string' || typeof err.code === 'number' ? { code: err.code } : {}),
      message,
    }),
  );
}

/** Marks the listing of `e` stale (the server said its tools changed) and reports it. */
export function markStale(e: ServerEntry, emit: Emit): void {
  if (e.stale) return;
  e.stale = true;
  emit(
    mcpEvent({
      type: 'mcp.catalog.updated',
      server: e.name,
      reason: 'stale',
      toolCount: e.tools.length,
    }),
  );
}
