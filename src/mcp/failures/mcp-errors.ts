import { McpError, MusterError, ToolError, redactedCause } from '../../errors/index.js';
import type {
  McpErrorCode,
  MusterErrorDetails,
  ToolOutcomeUnknownReason,
} from '../../errors/index.js';
import type { SecretRegistry } from '../../util/index.js';
import { ANSWERED_CODES, NOT_SENT_CODES, clientErrorOf } from './client-errors.js';
import { findInCauseChain } from './cause-chain.js';
import { failureReasonOf, timeoutOf } from './failure-reasons.js';
import type { TimeoutFact } from './failure-reasons.js';
import { networkFactOf } from './network-facts.js';
import { sessionGone } from './session-loss.js';
import { describeExit, exitOf } from './exit-status.js';
import type { ProcessExit } from './exit-status.js';

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

/** More facts for a tool error: never a second `reason` (the error's own one stands). */
type MoreFacts = Readonly<Record<string, unknown>> & { readonly reason?: never };

/** How a timeout reads: which option fired, and its value. */
export function timeoutText(fact: TimeoutFact): string {
  return fact.limit === 'maxTotalTimeoutMs'
    ? `timed out after ${fact.limitMs} ms (maxTotalTimeoutMs, progress or not)`
    : `timed out after ${fact.limitMs} ms (${fact.limit}) without a result or progress`;
}

/**
 * Maps what `callTool` threw to a tool-level error, on typed facts only (the client's
 * `ProtocolError` and `SdkError` codes, Muster's own failure reasons, the errno of a network
 * error), never message text:
 * - Muster's own tool error stands as it is (a result that does not match the tool's output
 *   schema: `TOOL_EXECUTION_FAILED`, reason `output-invalid`, `details.executed: true`);
 * - the server refused it for its credentials (HTTP 401 or 403, or Muster's own sign-in
 *   failure): `McpError('MCP_AUTH_REQUIRED')`, not run;
 * - the server's answer was no valid response to the request (a task on a connection that
 *   did not offer the Tasks extension, a task status no revision defines): that
 *   `McpError('MCP_OPERATION_FAILED')`, reason `invalid-response`;
 * - the Streamable HTTP server answered that the session is gone (404, see `sessionGone`) and
 *   no new session took the call: `TOOL_EXECUTION_FAILED`, reason `not-sent` (it never ran);
 * - the server answered with a JSON-RPC error: `TOOL_EXECUTION_FAILED` with `protocolCode`;
 * - nothing was sent (the connection was closed, or could not be made: refused, no such host,
 *   a refused certificate; or the server answered with a redirect, which Muster refuses):
 *   `TOOL_EXECUTION_FAILED` with `details.reason: 'not-sent'`;
 * - the response was over the byte limit: `TOOL_RESULT_TOO_LARGE`;
 * - otherwise (a timeout, a connection lost after the request was sent, an abort, anything
 *   unrecognized) the call may have run: `TOOL_OUTCOME_UNKNOWN` (never replayed),
 *   `details.reason` telling which; a timeout names the limit that fired.
 */
export function classifyCallError(err: unknown, ctx: CallErrorContext): ToolError | McpError {
  // the tool name is host- or server-given: it is redacted like the rest of the message
  const tool = ctx.secrets.redact(ctx.toolName);
  // the cause is a copy with the server's secrets masked along its whole chain
  const cause = redactedCause(err, ctx.secrets.values());
  const base = { toolName: ctx.toolName, cause };
  const unknown = (reason: ToolOutcomeUnknownReason, text: string, more: MoreFacts = {}) =>
    new ToolError(
      'TOOL_OUTCOME_UNKNOWN',
      `${text} The call may or may not have taken effect; it was not retried.`,
      { ...base, details: { server: ctx.server, reason, ...more } },
    );
  const notSent = (text?: string, more: MoreFacts = {}) =>
    new ToolError(
      'TOOL_EXECUTION_FAILED',
      text ?? `Server '${ctx.server}' is not connected: the call to '${tool}' was not sent.`,
      { ...base, details: { server: ctx.server, reason: 'not-sent', ...more } },
    );
  const disconnected = (exit?: ProcessExit) =>
    unknown(
      'disconnected',
      `Server '${ctx.server}' disconnected during the call to '${tool}'${exit ? ` (it ${describeExit(exit)})` : ''}.`,
      exit ? { exit } : {},
    );
  const timedOut = (fact: TimeoutFact) =>
    unknown('timeout', `The call to '${tool}' ${timeoutText(fact)}.`, {
      limit: fact.limit,
      limitMs: fact.limitMs,
    });
  if (ctx.signal.aborted)
    return unknown('aborted', `The call to '${tool}' was cancelled by an abort.`);
  // Muster's own verdict on the call (its output check) stands
  if (ToolError.isInstance(err)) return err;

  // refused for its credentials (401 or 403, before the tool ran): the sign-in error itself
  const auth = musterCause(err);
  if (auth?.code === 'MCP_AUTH_REQUIRED' && McpError.isInstance(auth)) return auth;
  // the server's answer was no valid response (a task where none may come): that error itself
  if (McpError.isInstance(auth) && auth.details.reason === 'invalid-response') return auth;

  const own = failureReasonOf(err);
  if (own?.reason === 'response-too-large') {
    // the response was refused for its size: the tool ran, its result is too large
    return new ToolError('TOOL_RESULT_TOO_LARGE', ctx.secrets.redact(own.error.message), {
      ...base,
      details: { server: ctx.server, ...limitDetails(own.error) },
    });
  }
  if (own?.reason === 'not-sent') return notSent();
  if (own?.reason === 'redirect') {
    return notSent(
      `Server '${ctx.server}' answered the call to '${tool}' with a redirect, which Muster refuses: the call was not run. Point the server's url at its final address.`,
      { refusal: 'redirect' },
    );
  }
  if (own?.reason === 'stream-lost') return disconnected(exitOf(own.error.details.exit));
  if (sessionGone(err)) {
    // the server refused the request at the HTTP level, before dispatching it
    return notSent(
      `Server '${ctx.server}' answered the call to '${tool}' that its session is gone (it expired or the server restarted), and no new session could be opened: the call was not sent to the tool. Try again; if it keeps failing, check the server.`,
      { refusal: 'session-gone' },
    );
  }
  const timeout = timeoutOf(err);
  if (timeout) return timedOut(timeout);

  const fact = clientErrorOf(err);
  if (fact?.kind === 'sdk' && (fact.status === 401 || fact.status === 403)) {
    // the HTTP layer refused the request for its credentials: the tool did not run
    return new McpError(
      'MCP_AUTH_REQUIRED',
      `Server '${ctx.server}' refused the call to '${tool}' for its credentials (HTTP ${fact.status}); it was not run. Sign in again, or check the server's token.`,
      {
        server: ctx.server,
        cause,
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
    if (fact.code === 'REQUEST_TIMEOUT')
      return timedOut({ limit: 'timeoutMs', limitMs: ctx.timeoutMs });
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
  const network = networkFactOf(err);
  if (network?.kind === 'not-sent') {
    return notSent(
      `Server '${ctx.server}' could not be reached (${network.code}): the call to '${tool}' was not sent.`,
      { networkCode: network.code },
    );
  }
  if (network?.kind === 'lost') {
    return unknown(
      'disconnected',
      `The connection to server '${ctx.server}' broke during the call to '${tool}' (${network.code}), after the call was sent.`,
      { networkCode: network.code },
    );
  }
  return unknown(
    'unknown',
    `The call to '${tool}' on server '${ctx.server}' failed: ${ctx.secrets.redact(messageOf(err))}.`,
  );
}

/** The size and limit facts of a `response-too-large` error, kept on the tool error. */
function limitDetails(error: MusterError): MusterErrorDetails<'TOOL_RESULT_TOO_LARGE'> {
  const { bytes, limit, option } = error.details;
  return {
    reason: 'response-too-large',
    ...(typeof bytes === 'number' ? { bytes } : {}),
    ...(typeof limit === 'number' ? { limit } : {}),
    ...(typeof option === 'string' ? { option } : {}),
  };
}

/**
 * The error of a failed operation other than a tool call (`MCP_OPERATION_FAILED`), with a
 * message that says what happened on typed facts: the limit of a timeout, a request that never
 * left (`details.reason: 'not-sent'`, with the network code), a connection lost after the
 * request was sent. Secrets are redacted; `protocolCode` is kept for JSON-RPC errors.
 */
export function operationFailure(
  server: string,
  what: string,
  err: unknown,
  secrets: SecretRegistry,
): McpError {
  const timeout = timeoutOf(err);
  const network = timeout ? undefined : networkFactOf(err);
  const fact = clientErrorOf(err);
  const protocolCode = fact?.kind === 'protocol' ? fact.code : undefined;
  const text = timeout
    ? `${what} on '${server}' ${timeoutText(timeout)}.`
    : network?.kind === 'not-sent'
      ? `${what} on '${server}' failed: the server could not be reached (${network.code}); the request was not sent.`
      : network?.kind === 'lost'
        ? `${what} on '${server}' failed: the connection broke after the request was sent (${network.code}).`
        : `${what} on '${server}' failed: ${messageOf(err)}`;
  return new McpError('MCP_OPERATION_FAILED', secrets.redact(text), {
    server,
    cause: redactedCause(err, secrets.values()),
    details: {
      server,
      ...(timeout ? { reason: 'timed-out', limit: timeout.limit, limitMs: timeout.limitMs } : {}),
      ...(network?.kind === 'not-sent' ? { reason: 'not-sent' } : {}),
      ...(network ? { networkCode: network.code } : {}),
      ...(protocolCode !== undefined ? { protocolCode } : {}),
    },
  });
}
