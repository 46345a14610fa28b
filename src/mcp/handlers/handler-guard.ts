import { abortedError } from '../../errors/index.js';

/**
 * Runs a host handler with a deadline: a handler that throws, runs past `timeoutMs` or is
 * still running when `signal` aborts rejects (`ABORTED` for the abort), and the server is
 * answered with an error (the run goes on). A handler is not started once `signal` aborted.
 */
export function guardHandler<T>(
  what: string,
  timeoutMs: number,
  signal: AbortSignal,
  run: (signal: AbortSignal) => T | Promise<T>,
): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedError(what, signal.reason));
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let abort = () => {};
  const deadline = new Promise<never>((_, reject) => {
    abort = () => {
      controller.abort(signal.reason);
      reject(abortedError(what, signal.reason));
    };
    signal.addEventListener('abort', abort, { once: true });
    timer = setTimeout(() => {
      const err = new Error(
        `${what} did not answer within ${timeoutMs} ms (mcp.handlerTimeoutMs).`,
      );
      controller.abort(err);
      reject(err);
    }, timeoutMs);
  });
  const work = Promise.resolve().then(() => run(controller.signal));
  return Promise.race([work, deadline]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  });
}
