import type { SessionLogEvent, SessionStore, SessionUpdateResult } from '../session/index.js';
import type { AgentEvent } from './events.js';

/** Numbers events where the store keeps no log: this process's counter, not durable (SPEC 10). */
const processSeq = { last: 0 };

/**
 * One run's side of its session's event log (SPEC 15.2). Once the run holds its lease and has
 * opened the session, every event it reports is numbered here: logged events one past the
 * last (`seq`), a `model.delta` the last logged `seq` and its `deltaIndex` after it (or its
 * own `seq` with `eventLog: 'all'`). Logged events wait in `pending` for the run's next step
 * commit, which writes them with the rest of the step; their JSON text is made when a store
 * asks for it. It also remembers whether steering may wait (as the last commit reported).
 */
export class RunEventLog {
  #last: number;
  #deltaIndex = 0;
  #pending: SessionLogEvent[] = [];
  readonly #durable: boolean;
  readonly #all: boolean;
  /** True until a commit reports no steering waiting. */
  steeringMaybe = true;

  private constructor(last: number, durable: boolean, all: boolean) {
    this.#last = last;
    this.#durable = durable;
    this.#all = all;
  }

  /** The log of a run of a session whose last logged event is `eventSeq`. */
  static open(store: SessionStore, eventSeq: number, all: boolean): RunEventLog {
    const durable = hasLog(store);
    return new RunEventLog(durable ? eventSeq : processSeq.last, durable, all);
  }

  /** The seq of the last logged event. */
  get lastSeq(): number {
    return this.#last;
  }

  /** Numbers `event` and, when it is logged, queues it for the next step commit. */
  stamp(event: AgentEvent): AgentEvent {
    if (event.type === 'model.delta' && !this.#all)
      return { ...event, seq: this.#last, deltaIndex: this.#deltaIndex++ };
    // no log: the process's one counter, so concurrent runs never share a seq
    const seq = this.#durable ? ++this.#last : (this.#last = ++processSeq.last);
    this.#deltaIndex = 0;
    const stamped = { ...event, seq };
    if (this.#durable) this.#pending.push(new LoggedEvent(stamped));
    return stamped;
  }

  /** The events waiting for a commit, handed to it (`undefined` when none). */
  take(): readonly SessionLogEvent[] | undefined {
    if (this.#pending.length === 0) return undefined;
    const taken = this.#pending;
    this.#pending = [];
    return taken;
  }

  /** A commit that carried `taken` failed: they wait for the next one, before newer events. */
  untake(taken: readonly SessionLogEvent[]): void {
    this.#pending = [...taken, ...this.#pending];
  }

  /**
   * Forgets the last stamped event (the run's final event, whose commit failed): its `seq`
   * goes to the event that reports the failure.
   */
  drop(seq: number): void {
    const last = this.#pending.at(-1);
    if (last?.seq !== seq || seq !== this.#last) return;
    this.#pending.pop();
    this.#last--;
  }

  /** What a commit reported. */
  committed(result: void | SessionUpdateResult): void {
    this.steeringMaybe = result?.steeringPending ?? true;
  }
}

/** True when `store` keeps an event log. */
export function hasLog(store: SessionStore): boolean {
  return typeof store.appendEvents === 'function' && typeof store.readEvents === 'function';
}

/** A logged event whose JSON text is made on first use (a memory store may never need it). */
class LoggedEvent implements SessionLogEvent {
  readonly seq: number;
  readonly type: string;
  #json: string | undefined;
  readonly #event: AgentEvent;

  constructor(event: AgentEvent) {
    this.seq = event.seq!;
    this.type = event.type;
    this.#event = event;
  }

  get json(): string {
    return (this.#json ??= eventJson(this.#event));
  }
}

/** An event as JSON text; errors as their `toJSON()` (code, message, details). */
function eventJson(event: AgentEvent): string {
  try {
    return JSON.stringify(event, (_key, value: unknown) =>
      value instanceof Error && !('toJSON' in value)
        ? { name: value.name, message: value.message }
        : typeof value === 'bigint'
          ? String(value)
          : value,
    );
  } catch {
    // a cycle in a host's data: the event's frame is still logged
    const { type, timestamp, sessionId, runId, seq } = event;
    return JSON.stringify({ type, timestamp, sessionId, runId, seq, unserializable: true });
  }
}
