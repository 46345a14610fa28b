import { MusterError } from '../errors/index.js';
import { findInCauseChain } from './cause-chain.js';

/**
 * Why Muster itself failed an MCP request, carried as `details.reason` on the `McpError`
 * it raises. Call errors are classified on these typed facts, never on message text:
 * - `response-too-large`: the transport refused a response over `mcp.maxResponseBytes`
 *   (the server ran the request; its answer was too large);
 * - `not-sent`: the connection was closed before the request was handed to the transport;
 * - `stream-lost`: the transport gave up on the request's response stream after sending it.
 */
export type McpFailureReason = 'response-too-large' | 'not-sent' | 'stream-lost';

/** The Muster failure reason in `err`'s cause chain, with the error that carries it. */
export function failureReasonOf(
  err: unknown,
): { readonly reason: McpFailureReason; readonly error: MusterError } | undefined {
  return findInCauseChain(err, (e) => {
    if (!MusterError.isInstance(e)) return undefined;
    const reason = e.details.reason;
    return reason === 'response-too-large' || reason === 'not-sent' || reason === 'stream-lost'
      ? { reason, error: e }
      : undefined;
  });
}
