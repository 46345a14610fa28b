import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A way to force a full garbage collection, and where it came from. */
export interface ForcedGc {
  readonly collect: () => void;
  /** `--expose-gc` when node was started with it, `v8 flag` when enabled at run time. */
  readonly source: '--expose-gc' | 'v8 flag' | 'unavailable';
}

/**
 * Returns `global.gc` when node runs with `--expose-gc`; otherwise turns the flag on at run
 * time (`v8.setFlagsFromString`) and takes `gc` from a fresh context. Falls back to a no-op.
 */
export function forcedGc(): ForcedGc {
  const exposed = globalThis.gc;
  if (exposed) return { collect: () => void exposed(), source: '--expose-gc' };
  try {
    setFlagsFromString('--expose-gc');
    const fromContext: unknown = runInNewContext('gc');
    if (typeof fromContext === 'function') {
      const collect = fromContext as () => void;
      return { collect: () => collect(), source: 'v8 flag' };
    }
  } catch {
    // not available in this runtime: measure without forcing collections
  }
  return { collect: () => undefined, source: 'unavailable' };
}
