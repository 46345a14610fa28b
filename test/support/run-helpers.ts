import type { AgentEvent, MusterError } from '../../src/index.js';

/** Everything one run produced: its events, and the error it threw, if any. */
export interface Collected {
  readonly events: AgentEvent[];
  readonly error: MusterError | undefined;
}

/** Drains a run, capturing the thrown error instead of rethrowing it. */
export async function collect(run: AsyncIterable<AgentEvent>): Promise<Collected> {
  const events: AgentEvent[] = [];
  try {
    for await (const ev of run) events.push(ev);
    return { events, error: undefined };
  } catch (err) {
    return { events, error: err as MusterError };
  }
}

/** The events of one type, narrowed. */
export function ofType<T extends AgentEvent['type']>(
  events: readonly AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
