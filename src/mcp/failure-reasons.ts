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

/** Node errno codes of a connection that was never made (refused, no such host). */
const NEVER_CONNECTED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * True when `err` says the request never left: Muster's `not-sent`, or a connection that was
 * never made (`ECONNREFUSED`, `ENOTFOUND`, `EAI_AGAIN` in the cause chain). Such a request may
 * be sent again; anything else may have reached the server.
 */
export function wasNotSent(err: unknown): boolean {
  if (failureReasonOf(err)?.reason === 'not-sent') return true;
  return (
    findInCauseChain(err, (e) => {
      const code = (e as { code?: unknown }).code;
      return (typeof code === 'string' && NEVER_CONNECTED.has(code)) || undefined;
    }) ?? false
  );
}
