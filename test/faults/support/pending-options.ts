/**
 * The options the fault suite configures (`mcp.reconnect`, the probe bounds of `mcp.protocol`,
 * the per-server `connectTimeoutMs`) under the suite's names, and its reconnect policy.
 */
import type {
  McpOptions,
  McpReconnectOptions,
  McpServerConfig,
  McpServerDiagnostics,
} from '../../../src/index.js';
import type { McpClientManagerOptions } from '../../../src/mcp/mcp-entry.js';

/** `mcp.reconnect` (SPEC 7.4). */
export type FaultReconnectOptions = McpReconnectOptions;

/** The MCP options the suite passes. */
export type FaultMcpOptions = McpOptions;

/** The manager options the suite passes. */
export type FaultManagerOptions = McpClientManagerOptions;

/** A server declaration (with its `connectTimeoutMs`). */
export type FaultServerConfig = McpServerConfig;

/** The agent's MCP options, as given. */
export function mcpOptions(options: FaultMcpOptions): McpOptions {
  return options;
}

/** The manager's options, as given. */
export function managerOptions(options: FaultManagerOptions): McpClientManagerOptions {
  return options;
}

/** What `diagnostics(name)` returns: the redacted stderr tail and the exit status. */
export type FaultDiagnostics = McpServerDiagnostics;

/** `owner.diagnostics(name)` of an agent's `mcp` or a manager. */
export function diagnosticsOf(
  owner: { diagnostics(name: string): McpServerDiagnostics },
  name: string,
): FaultDiagnostics {
  return owner.diagnostics(name);
}

/**
 * The reconnect policy of the cases that restart a server: background reconnects with short
 * waits (100 ms doubling to 400 ms, no jitter) and attempts enough (20, about 7 s) to outlast
 * a process that takes a second or two to come back.
 */
export const FAST_RECONNECT = Object.freeze({
  enabled: true,
  maxAttempts: 20,
  initialDelayMs: 100,
  maxDelayMs: 400,
  jitterRatio: 0,
} satisfies FaultReconnectOptions);
