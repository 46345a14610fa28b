/**
 * Calls an observer so that neither a throw nor a rejected promise can reach the caller;
 * failures go to `onError`, whose own failures are dropped.
 */
export function callIsolated(
  fn: () => unknown,
  onError: ((err: unknown) => unknown) | undefined,
): void {
  const report = (err: unknown) => {
    if (!onError) return;
    try {
      const r = onError(err);
      if (r && typeof (r as Promise<unknown>).then === 'function')
        (r as Promise<unknown>).then(undefined, () => undefined);
    } catch {
      // an error reporter that fails has nowhere left to report to
    }
  };
  try {
    const r = fn();
    if (r && typeof (r as Promise<unknown>).then === 'function')
      (r as Promise<unknown>).then(undefined, report);
  } catch (err) {
    report(err);
  }
}
