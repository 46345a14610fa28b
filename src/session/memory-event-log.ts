import type {
  SessionEventQuery,
  SessionLogEntry,
  SessionLogEvent,
  SessionUpdateResult,
} from './session-event-log.js';
import { eventPageSize, isStableLogEntry, logEntry, numberedJson } from './session-event-log.js';

/** What a commit without events reports (one value each, as every commit makes one). */
const NO_STEERING: SessionUpdateResult = Object.freeze({ steeringPending: false });
const STEERING_PENDING: SessionUpdateResult = Object.freeze({ steeringPending: true });

interface SessionLog {
  /** The kept entries, oldest first: the last one's seq is `lastSeq`, one less per step back. */
  entries: SessionLogEntry[];
  /** The seq of the last event ever logged (dropped ones included). */
  lastSeq: number;
  steering: string[];
}

/**
 * The event log and steering queue of a `MemorySessionStore`, in this process: the entries a
 * commit hands in, numbered by their place (the log has no holes but at its start), at most
 * `max` per session, made numbered JSON text when read; listeners called at once when a
 * session's log grows.
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
    return this.#append(this.#log(sessionId), sessionId, entries);
  }

  /** A step commit's part: appends `entries` (if any) and says whether steering waits. */
  commit(sessionId: string, entries: readonly SessionLogEntry[] | undefined): SessionUpdateResult {
    const log = this.#logs.get(sessionId);
    if (!entries || entries.length === 0)
      return (log?.steering.length ?? 0) > 0 ? STEERING_PENDING : NO_STEERING;
    const firstEventSeq = this.#append(log ?? this.#log(sessionId), sessionId, entries);
    return { steeringPending: log !== undefined && log.steering.length > 0, firstEventSeq };
  }

  /** Logs `body` as the session's next event (a decision's `wait.decided`). */
  appendNext(sessionId: string, body: { readonly type: string }): void {
    this.append(sessionId, [logEntry(body)]);
  }

  /** The kept events after `query.afterSeq`, oldest first, as plain records. */
  read(sessionId: string, query: SessionEventQuery): readonly SessionLogEvent[] {
    const log = this.#logs.get(sessionId);
    const after = Math.floor(query.afterSeq);
    if (!log || !Number.isFinite(after)) return [];
    const { entries, lastSeq } = log;
    const firstSeq = lastSeq - entries.length + 1;
    const from = Math.max(0, after + 1 - firstSeq);
    return entries.slice(from, from + eventPageSize(query)).map((entry, i) => {
      const seq = firstSeq + from + i;
      return { seq, type: entry.type, json: numberedJson(entry.json, seq) };
    });
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

  #append(log: SessionLog, sessionId: string, entries: readonly SessionLogEntry[]): number {
    const first = log.lastSeq + 1;
    // a run's entries are kept as they are (their text is made when first read); anyone
    // else's are copied, so changing one after the commit changes nothing
    for (const entry of entries)
      log.entries.push(isStableLogEntry(entry) ? entry : { type: entry.type, json: entry.json });
    log.lastSeq += entries.length;
    if (log.entries.length > this.#max) log.entries.splice(0, log.entries.length - this.#max);
    this.#wake(sessionId);
    return first;
  }

  #log(sessionId: string): SessionLog {
    let log = this.#logs.get(sessionId);
    if (!log) this.#logs.set(sessionId, (log = { entries: [], lastSeq: 0, steering: [] }));
    return log;
  }

  #wake(sessionId: string): void {
    const set = this.#listeners.get(sessionId);
    if (set) for (const listener of [...set]) listener();
  }
}
