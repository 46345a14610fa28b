import { MusterError, ToolError } from '../errors/index.js';
import type { McpErrorCode } from '../errors/index.js';
import { redact } from '../util/index.js';

interface ErrorLike {
  readonly name?: string;
  readonly message?: string;
  readonly code?: unknown;
  readonly status?: unknown;
  readonly cause?: unknown;
}

/** The innermost Muster error in a cause chain, if any (for example from the guarded fetch). */
function musterCause(err: unknown): MusterError | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as ErrorLike).cause, depth++) {
    if (MusterError.isInstance(e)) return e;
  }
  return undefined;
}

/** A sanitized `{ code, message }` for a status: secrets scrubbed, no stderr. */
export function describeError(
  err: unknown,
  server: string,
  fallback: McpErrorCode,
  secrets: readonly string[],
): { code: string; message: string } {
  const inner = musterCause(err);
  if (inner) return { code: inner.code, message: redact(inner.message, secrets) };
  const e = (err ?? {}) as ErrorLike;
  const detail = redact(String(e.message ?? err), secrets);
  const what = fallback === 'MCP_CONNECTION_FAILED' ? 'could not connect' : 'failed';
  return { code: fallback, message: `Server '${server}' ${what}: ${detail}` };
}

/** What {@link classifyCallError} needs to know about the call. */
export interface CallErrorContext {
  readonly toolName: string;
  readonly server: string;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly secrets: readonly string[];
}

/**
 * Maps what `callTool` threw to a tool-level error. A timeout, a disconnect and an abort all
 * leave the outcome unknown (`TOOL_OUTCOME_UNKNOWN`, never replayed); `details.reason` tells
 * them apart (`timeout`, `disconnected`, `aborted`).
 */
export function classifyCallError(err: unknown, ctx: CallErrorContext): ToolError {
  const e = (err ?? {}) as ErrorLike;
  const message = redact(String(e.message ?? err), ctx.secrets);
  const unknown = (reason: 'timeout' | 'disconnected' | 'aborted', text: string) =>
    new ToolError(
      'TOOL_OUTCOME_UNKNOWN',
      `${text} The call may or may not have taken effect; it was not retried.`,
      {
        toolName: ctx.toolName,
        cause: err,
        details: { server: ctx.server, reason },
      },
    );
  if (ctx.signal.aborted)
    return unknown('aborted', `The call to '${ctx.toolName}' was cancelled by an abort.`);
  if (e.code === 'REQUEST_TIMEOUT') {
    return unknown(
      'timeout',
      `The call to '${ctx.toolName}' timed out after ${ctx.timeoutMs} ms without a result or progress.`,
    );
  }
  if (e.code === 'CONNECTION_CLOSED' || /connection closed/i.test(message)) {
    return unknown(
      'disconnected',
      `Server '${ctx.server}' disconnected during the call to '${ctx.toolName}'.`,
    );
  }
  if (/not connected/i.test(message)) {
    return new ToolError(
      'TOOL_EXECUTION_FAILED',
      `Server '${ctx.server}' is not connected: the call to '${ctx.toolName}' was not sent.`,
      {
        toolName: ctx.toolName,
        cause: err,
        details: { server: ctx.server, reason: 'not-sent' },
      },
    );
  }
  const inner = musterCause(err);
  if (inner && inner.code === 'MCP_OPERATION_FAILED') {
    // the response was refused for its size: the tool ran, its result is too large
    return new ToolError('TOOL_RESULT_TOO_LARGE', redact(inner.message, ctx.secrets), {
      toolName: ctx.toolName,
      cause: err,
      details: { server: ctx.server },
    });
  }
  return new ToolError(
    'TOOL_EXECUTION_FAILED',
    `Server '${ctx.server}' refused the call to '${ctx.toolName}': ${message}`,
    {
      toolName: ctx.toolName,
      cause: err,
      details: {
        server: ctx.server,
        ...(typeof e.code === 'number' ? { protocolCode: e.code } : {}),
      },
    },
  );
}
