/**
 * Runs a host handler with a deadline: a handler that throws or runs past `timeoutMs`
 * rejects, and the server is answered with an error (the run goes on).
 */
export function guardHandler<T>(
  what: string,
  timeoutMs: number,
  signal: AbortSignal,
  run: (signal: AbortSignal) => T | Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
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
