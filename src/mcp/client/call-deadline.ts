import { McpError } from '../../errors/index.js';
import type { McpTransportFailureReason } from '../../errors/index.js';

/** A running deadline of one request: `passed` rejects when it passes; `signal` then aborts. */
export interface CallDeadline {
  readonly signal: AbortSignal;
  readonly passed: Promise<never>;
  dispose(): void;
}

/**
 * The hard deadline of a call's `maxTotalTimeoutMs`: the official client checks it only when
 * progress arrives, so a silent call would otherwise run to its per-request timeout. When it
 * passes, `passed` rejects with Muster's `timed-out` error first, then `signal` aborts (the
 * client cancels the request).
 */
export function totalDeadline(server: string, ms: number | undefined): CallDeadline | undefined {
  if (ms === undefined) return undefined;
  const controller = new AbortController();
  let fail: (error: McpError) => void = () => undefined;
  const passed = new Promise<never>((_, reject) => (fail = reject));
  passed.catch(() => undefined);
  const timer = setTimeout(() => {
    const error = new McpError(
      'MCP_OPERATION_FAILED',
      `The request to '${server}' ran past maxTotalTimeoutMs (${ms} ms).`,
      {
        server,
        details: {
          server,
          reason: 'timed-out' satisfies McpTransportFailureReason,
          limit: 'maxTotalTimeoutMs',
          limitMs: ms,
        },
      },
    );
    fail(error);
    controller.abort(error);
  }, ms);
  return { signal: controller.signal, passed, dispose: () => clearTimeout(timer) };
}
