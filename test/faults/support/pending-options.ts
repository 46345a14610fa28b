/**
 * The option shapes of reconnects and connect bounds that the fault suite configures:
 * `mcp.reconnect`, the probe bounds of `mcp.protocol` and the per-server `connectTimeoutMs`.
 * They are written as intersections with the declared types, so the suite type-checks whether
 * or not the declared types already carry them; the runtime's own schema decides whether they
 * are accepted (unknown keys fail construction).
 */
import type { McpOptions, McpServerConfig } from '../../../src/index.js';
import type { McpClientManagerOptions } from '../../../src/mcp/mcp-entry.js';

/** `mcp.reconnect` (SPEC 7.4). */
export interface FaultReconnectOptions {
  readonly enabled?: boolean;
  readonly maxAttempts?: number;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly jitterRatio?: number;
  readonly healthCheckIntervalMs?: number;
  readonly healthCheckTimeoutMs?: number;
}

/** `mcp.protocol` with its probe bounds (SPEC 7.3). */
export interface FaultProtocolPolicy {
  readonly mode: 'auto' | 'legacy' | { readonly pin: string };
  readonly probeTimeoutMs?: number;
  readonly probeMaxRetries?: number;
}

/** The MCP options the suite passes. */
export type FaultMcpOptions = Omit<McpOptions, 'protocol'> & {
  readonly protocol?: FaultProtocolPolicy;
  readonly reconnect?: FaultReconnectOptions;
};

/** The manager options the suite passes. */
export type FaultManagerOptions = Omit<McpClientManagerOptions, 'protocol'> & FaultMcpOptions;

/** A server declaration with its connect bound. */
export type FaultServerConfig = McpServerConfig & { readonly connectTimeoutMs?: number };

/** The options as the agent's declared type (the runtime validates them). */
export function mcpOptions(options: FaultMcpOptions): McpOptions {
  return options as McpOptions;
}

/** The options as the manager's declared type (the runtime validates them). */
export function managerOptions(options: FaultManagerOptions): McpClientManagerOptions {
  return options as McpClientManagerOptions;
}

/** What `diagnostics(name)` returns: the redacted stderr tail and the exit status. */
export interface FaultDiagnostics {
  readonly name: string;
  readonly stderrTail: string;
  readonly exit?: { readonly code: number | null; readonly signal: string | null };
}

/** Calls `owner.diagnostics(name)`; fails the test plainly when the method does not exist. */
export function diagnosticsOf(owner: object, name: string): FaultDiagnostics {
  const method = (owner as { diagnostics?: (name: string) => FaultDiagnostics }).diagnostics;
  if (typeof method !== 'function') throw new Error('diagnostics(name) is not implemented');
  return method.call(owner, name);
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
