import { McpError, MusterError, ToolError } from '../errors/index.js';
import type { McpErrorCode } from '../errors/index.js';
import type { SecretRegistry } from '../util/index.js';
import { ANSWERED_CODES, NOT_SENT_CODES, clientErrorOf } from './client-errors.js';
import { findInCauseChain } from './cause-chain.js';
import { failureReasonOf } from './failure-reasons.js';

/** The innermost Muster error in a cause chain, if any (for example from the guarded fetch). */
function musterCause(err: unknown): MusterError | undefined {
  return findInCauseChain(err, (e) => (MusterError.isInstance(e) ? e : undefined));
}

function messageOf(err: unknown): string {
  return String((err as { message?: unknown } | null)?.message ?? err);
}

/** A sanitized `{ code, message }` for a status: secrets scrubbed, no stderr. */
export function describeError(
  err: unknown,
  server: string,
  fallback: McpErrorCode,
  secrets: SecretRegistry,
): { code: string; message: string } {
  const inner = musterCause(err);
  if (inner) return { code: inner.code, message: secrets.redact(inner.message) };
  const detail = secrets.redact(messageOf(err));
  const what = fallback === 'MCP_CONNECTION_FAILED' ? 'could not connect' : 'failed';
  return { code: fallback, message: `Server '${server}' ${what}: ${detail}` };
}

/** What {@link classifyCallError} needs to know about the call. */
export interface CallErrorContext {
  readonly toolName: string;
  readonly server: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly secrets: SecretRegistry;
}

/** Why the outcome of a call is unknown. */
type UnknownReason = 'timeout' | 'disconnected' | 'aborted' | 'unknown';

/**
 * Maps what `callTool` threw to a tool-level error, on typed facts only (the client's
 * `ProtocolError` and `SdkError` codes, Muster's own failure reasons), never message text:
 * - the server refused it for its credentials (HTTP 401 or 403, or Muster's own sign-in
 *   failure): `McpError('MCP_AUTH_REQUIRED')`, not run;
 * - the server answered with a JSON-RPC error: `TOOL_EXECUTION_FAILED` with `protocolCode`;
 * - nothing was sent: `TOOL_EXECUTION_FAILED` with `details.reason: 'not-sent'`;
 * - the response was over the byte limit: `TOOL_RESULT_TOO_LARGE`;
 * - otherwise (a timeout, a disconnect, an abort, anything unrecognized) the call may have
 *   run: `TOOL_OUTCOME_UNKNOWN` (never replayed), `details.reason` telling which.
 */
export function classifyCallError(err: unknown, ctx: CallErrorContext): ToolError | McpError {
  // the tool name is host- or server-given: it is redacted like the rest of the message
  const tool = ctx.secrets.redact(ctx.toolName);
  const base = { toolName: ctx.toolName, cause: err };
  const unknown = (reason: UnknownReason, text: string) =>
    new ToolError(
      'TOOL_OUTCOME_UNKNOWN',
      `${text} The call may or may not have taken effect; it was not retried.`,
      { ...base, details: { server: ctx.server, reason } },
    );
  const notSent = () =>
    new ToolError(
      'TOOL_EXECUTION_FAILED',
      `Server '${ctx.server}' is not connected: the call to '${tool}' was not sent.`,
      { ...base, details: { server: ctx.server, reason: 'not-sent' } },
    );
  const disconnected = () =>
    unknown('disconnected', `Server '${ctx.server}' disconnected during the call to '${tool}'.`);
  if (ctx.signal.aborted)
    return unknown('aborted', `The call to '${tool}' was cancelled by an abort.`);

  // refused for its credentials (401 or 403, before the tool ran): the sign-in error itself
  const auth = musterCause(err);
  if (auth?.code === 'MCP_AUTH_REQUIRED' && McpError.isInstance(auth)) return auth;

  const own = failureReasonOf(err);
  if (own?.reason === 'response-too-large') {
    // the response was refused for its size: the tool ran, its result is too large
    return new ToolError('TOOL_RESULT_TOO_LARGE', ctx.secrets.redact(own.error.message), {
      ...base,
      details: { server: ctx.server },
    });
  }
  if (own?.reason === 'not-sent') return notSent();
  if (own?.reason === 'stream-lost') return disconnected();

  const fact = clientErrorOf(err);
  if (fact?.kind === 'sdk' && (fact.status === 401 || fact.status === 403)) {
    // the HTTP layer refused the request for its credentials: the tool did not run
    return new McpError(
      'MCP_AUTH_REQUIRED',
      `Server '${ctx.server}' refused the call to '${tool}' for its credentials (HTTP ${fact.status}); it was not run. Sign in again, or check the server's token.`,
      {
        server: ctx.server,
        cause: err,
        details: { server: ctx.server, reason: 'login-required', status: fact.status },
      },
    );
  }
  if (fact?.kind === 'protocol') {
    return new ToolError(
      'TOOL_EXECUTION_FAILED',
      `Server '${ctx.server}' refused the call to '${tool}': ${ctx.secrets.redact(messageOf(err))}`,
      { ...base, details: { server: ctx.server, protocolCode: fact.code } },
    );
  }
  if (fact?.kind === 'sdk') {
    if (fact.code === 'REQUEST_TIMEOUT') {
      return unknown(
        'timeout',
        `The call to '${tool}' timed out after ${ctx.timeoutMs} ms without a result or progress.`,
      );
    }
    if (fact.code === 'CONNECTION_CLOSED') return disconnected();
    if (NOT_SENT_CODES.has(fact.code)) return notSent();
    if (ANSWERED_CODES.has(fact.code)) {
      return new ToolError(
        'TOOL_EXECUTION_FAILED',
        `Server '${ctx.server}' answered the call to '${tool}' with an unusable result: ${ctx.secrets.redact(messageOf(err))}`,
        { ...base, details: { server: ctx.server, sdkCode: fact.code } },
      );
    }
  }
  return unknown(
    'unknown',
    `The call to '${tool}' on server '${ctx.server}' failed: ${ctx.secrets.redact(messageOf(err))}.`,
  );
}
