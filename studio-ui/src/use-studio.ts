import { useEffect, useState } from 'preact/hooks';
import type { StudioEvent } from '../../src/studio/api-types.js';
import { studioStore, type StudioState } from './studio-store.js';

/** The live studio state; re-renders on every change. */
export function useStudio(): StudioState {
  const [state, setState] = useState(studioStore.getState());
  useEffect(() => {
    setState(studioStore.getState());
    return studioStore.subscribe(setState);
  }, []);
  return state;
}

/** Calls `listener` for every studio event while the component is mounted. */
export function useStudioEvents(listener: (event: StudioEvent) => void): void {
  useEffect(() => studioStore.onEvent(listener), [listener]);
}
