import type { CallToolResult, LoggingLevel, Tool } from '@modelcontextprotocol/client';
import { pingOnce } from '../connection/health-check.js';
import type { OperationContext } from './operation-context.js';
import type { McpCallToolOptions, McpOperationOptions } from '../contracts/operation-types.js';
import { rememberLoggingLevel } from '../connection/session-state.js';

/**
 * Checks that a server answers: `ping` on a legacy connection, `server/discover` on a modern
 * one (the 2026-07-28 revision has no `ping`).
 */
export async function ping(
  ops: OperationContext,
  server: string,
  options?: McpOperationOptions,
): Promise<void> {
  await ops.run(server, 'Ping', 'read', options, (c, request) => pingOnce(c, request));
}

/**
 * Sets the lowest level of `notifications/message` the server should send. The level is
 * remembered and set again on every new connection (a reconnect, a renewed HTTP session).
 */
export async function setLoggingLevel(
  ops: OperationContext,
  server: string,
  level: LoggingLevel,
  options?: McpOperationOptions,
): Promise<void> {
  await ops.run(server, 'Setting the logging level', 'read', options, (c, request) =>
    c.request((client) => client.setLoggingLevel(level, request)),
  );
  const e = ops.entry(server);
  if (e) rememberLoggingLevel(e, level);
}

/** Lists every tool of a server as the server names them (all pages, no cache). */
export function listTools(
  ops: OperationContext,
  server: string,
  options?: McpOperationOptions,
): Promise<Tool[]> {
  return ops.run(server, 'Listing tools', 'read', options, (c, _request, bounds) =>
    c.listTools(bounds.timeoutMs, bounds.signal),
  );
}

/**
 * Calls a tool by its name on the server, outside the model's pipeline (the host asked for
 * it). Failures are classified as for the model's calls (`TOOL_OUTCOME_UNKNOWN` when the call
 * may have run). Retried only with `retry.retryNonIdempotent` (a tool may not be safe to run
 * twice), or when it was not sent.
 */
export function callTool(
  ops: OperationContext,
  server: string,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  options?: McpCallToolOptions,
): Promise<CallToolResult> {
  return ops.callTool(server, tool, args, options);
}
