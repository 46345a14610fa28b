import { McpError, redactedCause } from '../../errors/index.js';
import type { McpTransportFailureReason } from '../../errors/index.js';
import { clientErrorOf } from './client-errors.js';
import { describeExit } from './exit-status.js';
import type { ProcessExit } from './exit-status.js';

/** A request on a connection that is closed: it was not sent. */
export function notSentError(server: string): McpError {
  return new McpError(
    'MCP_OPERATION_FAILED',
    `Server '${server}' is not connected: the request was not sent.`,
    { server, details: { server, reason: 'not-sent' satisfies McpTransportFailureReason } },
  );
}

/** A request whose answer can no longer come (its stream or connection is gone). */
export function streamLostError(server: string): McpError {
  return new McpError(
    'MCP_DISCONNECTED',
    `Server '${server}' can no longer answer the request: its response stream was lost.`,
    { server, details: { server, reason: 'stream-lost' satisfies McpTransportFailureReason } },
  );
}

/** A request lost with its connection; a process's exit says why, when there is one. */
export function lostError(server: string, exit: ProcessExit | undefined): McpError {
  if (!exit) return streamLostError(server);
  return new McpError(
    'MCP_DISCONNECTED',
    `Server '${server}' ${describeExit(exit)} before answering the request.`,
    {
      server,
      details: { server, reason: 'stream-lost' satisfies McpTransportFailureReason, exit },
    },
  );
}

/**
 * A failed connect, said plainly on typed facts:
 * - with a pinned protocol version (`pin`), the client's `ERA_NEGOTIATION_FAILED`: the server
 *   did not offer that version (a legacy server, or one that ended on the probe), even when
 *   its process then exited because the connect closed it;
 * - a process that exited before answering: it says so, with its exit (the client only says
 *   "Connection closed").
 * Other failures are returned as they are.
 * The client's error is kept with `secrets` masked.
 */
export function connectFailure(
  server: string,
  exit: ProcessExit | undefined,
  err: unknown,
  secrets: readonly string[],
  pin?: string,
): unknown {
  const fact = clientErrorOf(err);
  if (pin !== undefined && fact?.kind === 'sdk' && fact.code === 'ERA_NEGOTIATION_FAILED') {
    return new McpError(
      'MCP_CONNECTION_FAILED',
      `Server '${server}' does not offer the pinned protocol version ${pin} (mcp.protocol.mode { pin: '${pin}' }): it answered the version probe as a legacy server, or ended on it. Use mcp.protocol.mode 'auto' (modern first, legacy fallback), or pin a version the server speaks.`,
      {
        server,
        cause: redactedCause(err, secrets),
        details: { server, reason: 'pin-not-offered', pin },
      },
    );
  }
  if (!exit || fact?.kind !== 'sdk') return err;
  return new McpError(
    'MCP_CONNECTION_FAILED',
    `Server '${server}' ${describeExit(exit)} before answering; its stderr is in diagnostics('${server}').`,
    { server, cause: redactedCause(err, secrets), details: { server, exit } },
  );
}

/** True for the client's own `CONNECTION_CLOSED` failure of a request. */
export function closedByClient(err: unknown): boolean {
  const fact = clientErrorOf(err);
  return fact?.kind === 'sdk' && fact.code === 'CONNECTION_CLOSED';
}

/**
 * A server's answer that is no valid response to its request (`details.reason:
 * 'invalid-response'`): a task answered to a `tools/call` on a connection that did not offer
 * the Tasks extension (SEP-2663 says the client treats it so), or a task answer without the
 * fields of one.
 */
export function invalidResponseError(
  server: string,
  method: string,
  problem: string,
  more: { readonly taskId?: string } = {},
): McpError {
  return new McpError(
    'MCP_OPERATION_FAILED',
    `Server '${server}' answered ${method} with an invalid response: ${problem}.`,
    { server, details: { server, method, ...more, reason: 'invalid-response' } },
  );
}
