import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { CallDeadline } from './call-deadline.js';
import type { CallOptions, CallRound } from '../contracts/connection-types.js';

/**
 * The official client's request options of one `tools/call`: the caller's signal (with the
 * hard deadline's, when there is one), the per-request timeout reset by progress, the
 * progress handler only when someone listens, and the tool's definition when Muster has it.
 *
 * Why the definition: without it the client looks the tool up in its response cache on every
 * call (an async read, and in the modern era a scan of the input schema for `x-mcp-header`
 * declarations too). With it, the output validator comes from the same object every time
 * (the validator compiles each schema object once). It is left out where the client's
 * header-mismatch recovery needs the cached lookup: modern-era calls to a remote server.
 */
export function callRequest(
  options: CallOptions,
  deadline: CallDeadline | undefined,
  definition: McpTool | undefined,
): Record<string, unknown> {
  return {
    signal: deadline ? AbortSignal.any([options.signal, deadline.signal]) : options.signal,
    timeout: options.timeoutMs,
    resetTimeoutOnProgress: true,
    ...(options.maxTotalTimeoutMs !== undefined
      ? { maxTotalTimeout: options.maxTotalTimeoutMs }
      : {}),
    ...(options.onProgress ? { onprogress: options.onProgress } : {}),
    ...(definition ? { toolDefinition: definition } : {}),
    // a round Muster answers itself: the client hands `input_required` back
    ...(options.round ? { allowInputRequired: true } : {}),
  };
}

/** The `_meta` key of a call's idempotency key (SPEC 15.5). */
export const IDEMPOTENCY_KEY_META = 'io.muster/idempotency-key';

/**
 * The params of one `tools/call`: a round's retry carries its answers and the server's state;
 * a call made in a session carries its idempotency key in `_meta`.
 */
export function callParams(
  name: string,
  args: Record<string, unknown>,
  round: CallRound | undefined,
  idempotencyKey?: string,
): Record<string, unknown> {
  const meta = idempotencyKey ? { _meta: { [IDEMPOTENCY_KEY_META]: idempotencyKey } } : {};
  if (!round) return { name, arguments: args, ...meta };
  return {
    name,
    arguments: args,
    ...meta,
    ...(round.inputResponses ? { inputResponses: round.inputResponses } : {}),
    ...(round.requestState !== undefined ? { requestState: round.requestState } : {}),
  };
}
