import { useCallback, useState } from 'preact/hooks';
import { toApiError, type ApiError } from './api.js';

/** A running request's state: busy while it runs, the error it ended with. */
export interface Action {
  readonly busy: boolean;
  readonly error: ApiError | undefined;
  /** Runs `task`; resolves to its value, or undefined when it failed (the error is kept). */
  run<T>(task: () => Promise<T>): Promise<T | undefined>;
  setError(error: ApiError | undefined): void;
}

/** One request at a time for a button or form, with its error for `<FormError>`. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const run = useCallback(async <T>(task: () => Promise<T>) => {
    setBusy(true);
    setError(undefined);
    try {
      return await task();
    } catch (caught) {
      setError(toApiError(caught));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}
