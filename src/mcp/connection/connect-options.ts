import type { McpOptions } from '../contracts/config-types.js';
import type { ConnectionSpec } from '../client/mcp-connection.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import type { ServerEntry } from './server-entry.js';

/**
 * The per-server parts of a connection's spec: the bound of its connects (the declaration's
 * `connectTimeoutMs`, else the default), the protocol probe's bounds (`mcp.protocol`), and
 * where its stdio process is kept for `diagnostics()` (the entry, so it outlives a connect
 * that failed).
 */
export function connectOptionsFor(
  e: ServerEntry,
  options: McpOptions,
): Pick<ConnectionSpec, 'connectTimeoutMs' | 'probe' | 'onProcess'> {
  const declared =
    e.config.type === 'sdk'
      ? undefined
      : (e.config as { connectTimeoutMs?: number }).connectTimeoutMs;
  const protocol = options.protocol;
  const probe = {
    ...(protocol?.probeTimeoutMs !== undefined ? { timeoutMs: protocol.probeTimeoutMs } : {}),
    ...(protocol?.probeMaxRetries !== undefined ? { maxRetries: protocol.probeMaxRetries } : {}),
  };
  return {
    connectTimeoutMs: declared ?? MCP_DEFAULTS.connectTimeoutMs,
    ...(Object.keys(probe).length > 0 ? { probe } : {}),
    onProcess: (process) => {
      e.process = process;
    },
  };
}
