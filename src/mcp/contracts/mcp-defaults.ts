import type { ExecutorEvent } from '../../tools/index.js';
import type { McpTasksOptions, McpTransportType } from './config-types.js';
import type { McpEvent } from './mcp-events.js';

/** Defaults of SPEC section 7. */
export const MCP_DEFAULTS = Object.freeze({
  startupConcurrency: 4,
  maxResponseBytes: 8 * 1024 * 1024,
  archiveThresholdBytes: 16 * 1024,
  timeoutMs: 60_000,
  connectTimeoutMs: 30_000,
  /** How long the stdio protocol probe waits for an answer before the server counts as legacy. */
  probeTimeoutMs: 10_000,
  stderrBytes: 8 * 1024,
  transports: ['stdio', 'http', 'sdk'] as readonly McpTransportType[],
  /** `mcp.maxPrincipalConnections`: per-principal connections open at once, agent-wide. */
  maxPrincipalConnections: 64,
  /** `mcp.principalIdleMs`: an unused per-principal connection is closed after this. */
  principalIdleMs: 300_000,
  /** `mcp.tasks`: the bounds of the wait between two polls of a task (SPEC 15.3). */
  tasks: Object.freeze({ minPollIntervalMs: 250, maxPollIntervalMs: 5_000, parkAfterMs: 30_000 }),
  /** Rounds of a server's input requests one call answers before giving up (the client's 10). */
  maxInputRounds: 10,
  /** `mcp.reconnect` (health checks only with `healthCheckIntervalMs`). */
  reconnect: Object.freeze({
    enabled: false,
    maxAttempts: 5,
    initialDelayMs: 250,
    maxDelayMs: 10_000,
    jitterRatio: 0.2,
    healthCheckTimeoutMs: 5_000,
  }),
});

/**
 * How long after a task was polled its next poll is due (SPEC 15.3): the server's
 * `pollIntervalMs` within `mcp.tasks.minPollIntervalMs` and `maxPollIntervalMs` (defaults
 * applied), as the poller waits; the minimum when the server named none. A worker queues a
 * parked task's resume this long after the park (SPEC 15.5).
 */
export function taskPollDelayMs(
  tasks: McpTasksOptions | undefined,
  requested: number | undefined,
): number {
  const min = tasks?.minPollIntervalMs ?? MCP_DEFAULTS.tasks.minPollIntervalMs;
  const max = tasks?.maxPollIntervalMs ?? MCP_DEFAULTS.tasks.maxPollIntervalMs;
  if (requested === undefined || !Number.isFinite(requested)) return min;
  return Math.min(max, Math.max(min, requested));
}

/** Where events go: the current run, or the agent's observers between runs. */
export type Emit = (event: ExecutorEvent) => void;

/** Stamps an MCP event for an executor's `emit` (the agent fills in session and run). */
export function mcpEvent<T extends Omit<McpEvent, 'timestamp' | 'sessionId' | 'runId'>>(
  fields: T,
): T & ExecutorEvent {
  return { ...fields, timestamp: new Date().toISOString(), sessionId: '', runId: '' };
}
