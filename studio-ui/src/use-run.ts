import { useEffect, useState } from 'preact/hooks';
import { runStore, type RunRecord } from './run-store.js';

/** The page's record of a session's run (live or last seen); re-renders on every change. */
export function useRun(sessionId: string | undefined): RunRecord | undefined {
  const [run, setRun] = useState(sessionId ? runStore.get(sessionId) : undefined);
  useEffect(() => {
    const update = () => setRun(sessionId ? runStore.get(sessionId) : undefined);
    update();
    return runStore.subscribe(update);
  }, [sessionId]);
  return run;
}
