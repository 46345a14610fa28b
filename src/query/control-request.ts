import { MusterError } from '../errors/index.js';

/** The default bound of a control request (`canUseTool`, `onElicitation`, auth), in ms. */
export const DEFAULT_CONTROL_REQUEST_TIMEOUT_MS = 60_000;

/**
 * Runs one control request (a host callback or an auth step) under `controlRequestTimeoutMs`:
 * `fn` gets a signal that aborts when `outer` does or the bound passes, and the promise
 * rejects at once then (`MCP_OPERATION_FAILED` naming the option; `ABORTED` when `outer`
 * aborted). A bound of 0 means none.
 */
export async function boundedControlRequest<T>(
  what: string,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const signals = outer ? [controller.signal, outer] : [controller.signal];
  const signal = AbortSignal.any(signals);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        const error = new MusterError(
          'MCP_OPERATION_FAILED',
          `${what} did not answer within ${timeoutMs} ms (controlRequestTimeoutMs); raise the option, or pass 0 for no bound.`,
        );
        controller.abort(error);
        reject(error);
      }, timeoutMs);
    }
    if (outer) {
      onAbort = () =>
        reject(new MusterError('ABORTED', `${what} was cancelled.`, { cause: outer.reason }));
      if (outer.aborted) onAbort();
      else outer.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([fn(signal), stop]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) outer?.removeEventListener('abort', onAbort);
  }
}
