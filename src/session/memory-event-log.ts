import type { SessionEventQuery, SessionLogEntry, SessionLogEvent } from './session-event-log.js';
import { eventPageSize, logEntry, numberedJson } from './session-event-log.js';

interface SessionLog {
  events: SessionLogEvent[];
  /** The seq of the last event ever logged (dropped ones included). */
  lastSeq: number;
  steering: string[];
}

/**
 * The event log and steering queue of a `MemorySessionStore`, in this process: records
 * numbered and made JSON text at commit, at most `max` per session, and listeners called at
 * once when a session's log grows.
 */
export class MemoryEventLog {
  readonly #logs = new Map<string, SessionLog>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The seq of the session's last logged event (0 when none). */
  lastSeq(sessionId: string): number {
    return this.#logs.get(sessionId)?.lastSeq ?? 0;
  }

  /**
   * Appends entries, numbered here one past the session's last `seq`, and wakes the session's
   * listeners; returns the first number given (undefined when there were none).
   */
  append(sessionId: string, entries: readonly SessionLogEntry[]): number | undefined {
    if (entries.length === 0) return undefined;
    const log = this.#log(sessionId);
    const first = log.lastSeq + 1;
    for (const entry of entries) log.events.push(new MemoryRecord(++log.lastSeq, entry));
    if (log.events.length > this.#max) log.events.splice(0, log.events.length - this.#max);
    this.#wake(sessionId);
    return first;
  }

  /** Logs `body` as the session's next event (a decision's `wait.decided`). */
  appendNext(sessionId: string, body: { readonly type: string }): void {
    this.append(sessionId, [logEntry(body)]);
  }

  /** The kept events after `query.afterSeq`, oldest first. */
  read(sessionId: string, query: SessionEventQuery): readonly SessionLogEvent[] {
    const events = this.#logs.get(sessionId)?.events ?? [];
    // seqs ascend: find the first one past afterSeq by bisection
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (events[mid]!.seq <= query.afterSeq) lo = mid + 1;
      else hi = mid;
    }
    return events.slice(lo, lo + eventPageSize(query));
  }

  /** Calls `listener` when the session logs events; returns the function that stops. */
  watch(sessionId: string, listener: () => void): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) this.#listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(sessionId) === set)
        this.#listeners.delete(sessionId);
    };
  }

  /** Queues a steering message for the session's run. */
  steer(sessionId: string, text: string): void {
    this.#log(sessionId).steering.push(text);
  }

  /** Whether the session has steering messages queued. */
  hasSteering(sessionId: string): boolean {
    return (this.#logs.get(sessionId)?.steering.length ?? 0) > 0;
  }

  /** The session's steering messages, oldest first, left queued. */
  peekSteering(sessionId: string): string[] {
    return [...(this.#logs.get(sessionId)?.steering ?? [])];
  }

  /** Takes the session's steering messages, oldest first. */
  takeSteering(sessionId: string): string[] {
    const log = this.#logs.get(sessionId);
    return log ? log.steering.splice(0) : [];
  }

  /** Forgets the session's events and steering messages. */
  drop(sessionId: string): void {
    this.#logs.delete(sessionId);
  }

  #log(sessionId: string): SessionLog {
    let log = this.#logs.get(sessionId);
    if (!log) this.#logs.set(sessionId, (log = { events: [], lastSeq: 0, steering: [] }));
    return log;
  }

  #wake(sessionId: string): void {
    const set = this.#listeners.get(sessionId);
    if (set) for (const listener of [...set]) listener();
  }
}

/**
 * A kept event, its numbered JSON text made at commit: a host that changes an event it was
 * handed afterwards does not change the log.
 */
class MemoryRecord implements SessionLogEvent {
  readonly seq: number;
  readonly type: string;
  readonly json: string;

  constructor(seq: number, entry: SessionLogEntry) {
    this.seq = seq;
    this.type = entry.type;
    this.json = numberedJson(entry.json, seq);
  }
}
