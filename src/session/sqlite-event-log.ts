import type { Database, Statement } from 'better-sqlite3';
import { statementCache } from './sqlite-statements.js';
import type { SqliteGuard } from './sqlite-failure.js';
import type { SessionEventQuery, SessionLogEntry, SessionLogEvent } from './session-event-log.js';
import { eventPageSize, logEntry, numberedJson } from './session-event-log.js';

/**
 * The event log and steering queue of a `SqliteSessionStore`, in the same file. Writes run
 * inside the store's transactions (the step commit's, a decision's); watchers of this process
 * are woken after each commit, and those of other processes on the host notice a commit by
 * polling `PRAGMA data_version` every `pollMs`, while anyone watches.
 */
export class SqliteEventLog {
  readonly #db: Database;
  readonly #sql: (sql: string) => Statement;
  readonly #guard: SqliteGuard;
  readonly #max: number;
  readonly #pollMs: number;
  readonly #listeners = new Map<string, Set<() => void>>();
  #timer: NodeJS.Timeout | undefined;
  #version = 0;

  constructor(db: Database, guard: SqliteGuard, max: number, pollMs: number) {
    this.#db = db;
    this.#guard = guard;
    this.#sql = statementCache(db);
    this.#max = max;
    this.#pollMs = pollMs;
  }

  /**
   * Inserts entries numbered one past `eventSeq` (the session row's, read in the same
   * transaction), moves the row's `event_seq` on and trims the session's log; inside the
   * caller's transaction. Returns the first number given (undefined when there were none).
   */
  append(
    sessionId: string,
    entries: readonly SessionLogEntry[],
    eventSeq: number,
  ): number | undefined {
    if (entries.length === 0) return undefined;
    const insert = this.#sql(
      'INSERT INTO muster_events (session_id, seq, type, body) VALUES (?, ?, ?, ?)',
    );
    let seq = eventSeq;
    for (const e of entries) {
      seq++;
      insert.run(sessionId, seq, e.type, numberedJson(e.json, seq));
    }
    this.#sql('UPDATE muster_sessions SET event_seq = ? WHERE id = ?').run(seq, sessionId);
    if (seq > this.#max)
      this.#sql('DELETE FROM muster_events WHERE session_id = ? AND seq <= ?').run(
        sessionId,
        seq - this.#max,
      );
    return eventSeq + 1;
  }

  /** Logs `body` as the session's next event; inside the caller's transaction. */
  appendNext(sessionId: string, body: { readonly type: string }): void {
    const last = this.#sql('SELECT event_seq FROM muster_sessions WHERE id = ?')
      .pluck()
      .get(sessionId) as number | undefined;
    if (last !== undefined) this.append(sessionId, [logEntry(body)], last);
  }

  /** True when steering waits for the session; inside the caller's transaction. */
  hasSteering(sessionId: string): boolean {
    return this.#sql('SELECT 1 FROM muster_steering WHERE session_id = ? LIMIT 1').get(sessionId)
      ? true
      : false;
  }

  /** The kept events after `query.afterSeq`, oldest first. */
  read(sessionId: string, query: SessionEventQuery): SessionLogEvent[] {
    return this.#guard(
      () =>
        this.#sql(
          `SELECT seq, type, body AS json FROM muster_events WHERE session_id = ? AND seq > ?
           ORDER BY seq LIMIT ?`,
        ).all(sessionId, query.afterSeq, eventPageSize(query)) as SessionLogEvent[],
    );
  }

  /** Queues a steering message; inside the caller's transaction. */
  steer(sessionId: string, text: string): void {
    this.#sql('INSERT INTO muster_steering (session_id, text, created_at) VALUES (?, ?, ?)').run(
      sessionId,
      text,
      new Date().toISOString(),
    );
  }

  /** Takes the session's steering messages, oldest first; inside the caller's transaction. */
  take(sessionId: string): string[] {
    const texts = this.#sql('SELECT text FROM muster_steering WHERE session_id = ? ORDER BY id')
      .pluck()
      .all(sessionId) as string[];
    if (texts.length > 0)
      this.#sql('DELETE FROM muster_steering WHERE session_id = ?').run(sessionId);
    return texts;
  }

  /** Deletes the session's events and steering messages. */
  drop(sessionId: string): void {
    for (const table of ['muster_events', 'muster_steering'])
      this.#sql(`DELETE FROM ${table} WHERE session_id = ?`).run(sessionId);
  }

  /** Calls `listener` when the session logs events; returns the function that stops. */
  watch(sessionId: string, listener: () => void): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) this.#listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    this.#poll();
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(sessionId) === set)
        this.#listeners.delete(sessionId);
      if (this.#listeners.size === 0) this.#stop();
    };
  }

  /** Wakes this process's watchers of the session (after a commit of this connection). */
  committed(sessionId: string): void {
    const set = this.#listeners.get(sessionId);
    if (set) for (const listener of [...set]) listener();
  }

  /** Stops polling (the store closes). */
  close(): void {
    this.#listeners.clear();
    this.#stop();
  }

  #poll(): void {
    if (this.#timer) return;
    try {
      this.#version = this.#dataVersion();
    } catch {
      this.#version = Number.NaN;
    }
    this.#timer = setInterval(() => {
      if (!this.#db.open) return this.#stop();
      let version: number;
      try {
        version = this.#dataVersion();
      } catch {
        // the file is busy or gone for a moment: every watcher reads again (its read reports
        // a lasting failure, typed), and the next tick asks anew
        version = Number.NaN;
      }
      if (version === this.#version) return;
      this.#version = version;
      // another connection committed: every watcher reads its session again
      for (const set of [...this.#listeners.values()]) for (const l of [...set]) l();
    }, this.#pollMs);
  }

  #stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #dataVersion(): number {
    return this.#db.pragma('data_version', { simple: true }) as number;
  }
}
