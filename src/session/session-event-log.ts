import { MusterError } from '../errors/index.js';
import type { SessionWriteOptions } from './session-write.js';

/**
 * An event to log (SPEC 15.2), before the store numbers it: the store hands out `seq` in the
 * commit that writes it (one past the session's last, `SessionState.eventSeq`, under the
 * session's lock or in the commit's transaction), so `(sessionId, seq)` names one event
 * whatever else writes to the log meanwhile.
 */
export interface SessionLogEntry {
  /** The event's `type`. */
  readonly type: string;
  /**
   * The event as a JSON object's text, without `seq`: the store writes it with `"seq":<n>` as
   * its first member (see `numberedJson`). A run's entries make this text when it is first
   * read: read the property (or `JSON.stringify` the entry); a spread or a `structuredClone`
   * of an entry may not carry it.
   */
  readonly json: string;
}

/**
 * Marks a log entry whose `type` and `json` never change once handed to a store (the run's
 * own, which make their text when first asked): the memory store keeps such an entry as it
 * is, and copies any other. Internal to Muster.
 */
export const STABLE_LOG_ENTRY: unique symbol = Symbol('muster.stableLogEntry');

/** True for an entry marked {@link STABLE_LOG_ENTRY}. */
export function isStableLogEntry(entry: SessionLogEntry): boolean {
  return (entry as { readonly [STABLE_LOG_ENTRY]?: true })[STABLE_LOG_ENTRY] === true;
}

/** One event of a session's log, as a store keeps it and reads it back. */
export interface SessionLogEvent extends SessionLogEntry {
  /** Grows by one per logged event of the session, from 1, across runs and processes. */
  readonly seq: number;
  /** The event as JSON text, its `seq` included. */
  readonly json: string;
}

/** What {@link SessionEventLog.readEvents} takes. */
export interface SessionEventQuery {
  /** Events with a larger `seq` than this one (0 for all that are kept). */
  readonly afterSeq: number;
  /** At most this many (default and most 1000). */
  readonly limit?: number;
}

/**
 * What a step commit (`SessionStore.update`) may report back. A store that reports nothing is
 * asked for steering at every step boundary.
 */
export interface SessionUpdateResult {
  /** True when steering messages wait for the session (`SessionEventLog.steer`). */
  readonly steeringPending?: boolean;
  /**
   * The `seq` the store gave the first event of the commit's `appendEvents` (the others follow
   * it one by one); absent when the commit logged none.
   */
  readonly firstEventSeq?: number;
}

/**
 * The optional event-log and steering methods of a `SessionStore` (SPEC 15.2). A store with a
 * log writes `SessionPatch.appendEvents` in the same commit as the rest of the patch (one
 * transaction, or one statement), numbering them itself from the session's last `seq` within
 * that commit and reporting the first number given (`SessionUpdateResult.firstEventSeq`);
 * keeps at most `eventLogMaxPerSession` events per session (the oldest dropped: a reader sees
 * the hole as a `gap`) and reports the last `seq` ever given as `SessionState.eventSeq`.
 */
export interface SessionEventLog {
  /**
   * Appends events (fenced like `update`), numbered by the store like a step commit's; for
   * events that no step commit carries.
   */
  appendEvents?(
    sessionId: string,
    events: readonly SessionLogEntry[],
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult>;
  /** The kept events after `query.afterSeq`, oldest first. */
  readEvents?(sessionId: string, query: SessionEventQuery): Promise<readonly SessionLogEvent[]>;
  /**
   * Calls `listener` whenever events of the session may have been committed, by any process
   * the store can hear (PostgreSQL: LISTEN/NOTIFY; SQLite: the same host, by polling);
   * returns the function that stops. Without it, watchers poll `readEvents`.
   */
  watchEvents?(sessionId: string, listener: () => void): () => void;
  /**
   * Queues a user message for the session's run (any process); `SESSION_NOT_FOUND` for an
   * unknown session.
   */
  steer?(sessionId: string, text: string): Promise<void>;
  /**
   * Takes the queued steering messages of the session, oldest first, and appends them to its
   * transcript as user messages, in one transaction fenced like `update`: each is taken once.
   * With `take.event`, a store with a log logs one event per message in that transaction.
   */
  takeSteering?(
    sessionId: string,
    options?: SessionWriteOptions,
    take?: SteeringTake,
  ): Promise<readonly string[]>;
}

/** What `SessionEventLog.takeSteering` logs with the messages it takes (SPEC 15.2). */
export interface SteeringTake {
  /** The event logged for each message taken (`steering.delivered`), numbered by the store. */
  readonly event?: (text: string) => { readonly type: string };
  /** Called, once the take committed, with the `seq` given to the first of those events. */
  readonly logged?: (firstEventSeq: number) => void;
}

/** The default of `eventLogMaxPerSession`. */
export const DEFAULT_EVENT_LOG_MAX = 10_000;

/** The most events one `readEvents` call returns. */
export const MAX_EVENT_PAGE = 1000;

/** `eventLogMaxPerSession` as given (default {@link DEFAULT_EVENT_LOG_MAX}), checked. */
export function eventLogMax(value: unknown): number {
  if (value === undefined) return DEFAULT_EVENT_LOG_MAX;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `eventLogMaxPerSession must be a whole number of events of at least 1, not ${String(value)}: it bounds each session's event log (default ${DEFAULT_EVENT_LOG_MAX}).`,
    );
  return value;
}

/** `eventLogPollMs` as given (default 250), checked. */
export function eventLogPollMs(value: unknown): number {
  if (value === undefined) return 250;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `eventLogPollMs must be a whole number of ms of at least 1, not ${String(value)} (default 250).`,
    );
  return value;
}

/** The page size of an event query, bounded. */
export function eventPageSize(query: SessionEventQuery): number {
  const limit = query.limit ?? MAX_EVENT_PAGE;
  return Number.isSafeInteger(limit) && limit >= 1
    ? Math.min(limit, MAX_EVENT_PAGE)
    : MAX_EVENT_PAGE;
}

/** The log entry of an event built outside a run (a decision's `wait.decided`). */
export function logEntry(body: { readonly type: string }): SessionLogEntry {
  return { type: body.type, json: JSON.stringify(body) };
}

/** An entry's JSON object text with `"seq":<seq>` as its first member. */
export function numberedJson(json: string, seq: number): string {
  const rest = json.slice(1).trimStart();
  return rest.startsWith('}') ? `{"seq":${seq}}` : `{"seq":${seq},${rest}`;
}
