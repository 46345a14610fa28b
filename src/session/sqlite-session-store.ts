import type { Database as Db, Statement } from 'better-sqlite3';
import { addUsage } from '../model/index.js';
import { assertValid, checkedElsewhere, shape } from '../util/index.js';
import type { Check } from '../util/index.js';
import type { Usage } from '../model/index.js';
import { statementCache } from './sqlite-statements.js';
import type { SessionArchive } from './session-archive.js';
import type { SessionWaits } from './session-waits.js';
import type {
  SessionLease,
  SessionListQuery,
  SessionPage,
  SessionPatch,
  SessionState,
  SessionStore,
  SessionWriteOptions,
} from './session-store.js';
import type { LeaseRecord } from './session-rules.js';
import { existsError, heldError, isLive, notFoundError, pageSize } from './session-rules.js';
import { sqliteGuard } from './sqlite-failure.js';
import type { SqliteGuard } from './sqlite-failure.js';
import { openSqliteStore } from './sqlite-open.js';
import { SqliteArchive } from './sqlite-archive.js';
import { SqliteWaits } from './sqlite-waits.js';
import { SqliteEventLog } from './sqlite-event-log.js';
import { SqliteLeases } from './sqlite-leases.js';
import { eventLogMax, eventLogPollMs, logEntry } from './session-event-log.js';
import type {
  SessionEventQuery,
  SessionLogEntry,
  SessionLogEvent,
  SessionUpdateResult,
  SteeringTake,
} from './session-event-log.js';
import { outputJson, rowToState, rowToSummary, sessionRowValues } from './stored-rows.js';
import type { SessionRow } from './stored-rows.js';

/** Options of {@link SqliteSessionStore}. */
export interface SqliteSessionStoreOptions {
  /** The database file; created with its schema on first use. */
  readonly path: string;
  /** Archived bytes kept per session (default 64 MiB); the oldest items go first. */
  readonly maxArchiveBytesPerSession?: number;
  /**
   * How long a statement waits for another connection's lock, in ms (default 5000); past it,
   * the store fails with `SESSION_STORE_FAILED` (`details.reason` `locked`).
   */
  readonly busyTimeoutMs?: number;
  /**
   * How commits reach the disk (default `'normal'`). With `'normal'` a commit survives a crash
   * of the process, and the file is never corrupted, but the last commits may be lost when the
   * machine loses power; `'full'` syncs on every commit, so each one that returned survives a
   * power loss too, and every commit costs a sync.
   */
  readonly synchronous?: 'normal' | 'full';
  /** Events kept per session (default 10000); the oldest go first, seen as a `gap`. */
  readonly eventLogMaxPerSession?: number;
  /**
   * How often a watcher checks the file for commits of other processes, in ms (default 250):
   * watching works between processes of the same host only.
   */
  readonly eventLogPollMs?: number;
}

/** The keys of the options; their values are read where they are used. Others are refused. */
const OPTION_KEYS = shape({
  path: checkedElsewhere,
  maxArchiveBytesPerSession: checkedElsewhere,
  busyTimeoutMs: checkedElsewhere,
  synchronous: checkedElsewhere,
  eventLogMaxPerSession: checkedElsewhere,
  eventLogPollMs: checkedElsewhere,
} satisfies Record<keyof SqliteSessionStoreOptions, Check>);

/**
 * Sessions in one SQLite file (WAL, a versioned schema), on `better-sqlite3`. The CLI's
 * default; several processes may share the file, and leases with fencing tokens make one of
 * them own a running session. Large tool results are archived in the same file.
 *
 * A driver that cannot serve fails the constructor with `INVALID_CONFIGURATION` and
 * `details.reason` `driver-missing` (not installed), `driver-not-built` (no native binary) or
 * `driver-abi-mismatch` (a binary built for another Node.js); importing the entry never fails
 * for it. A file that cannot serve fails the constructor, and any method, with
 * `SESSION_STORE_FAILED` whose `details.reason` says why (`folder-missing`, `not-permitted`,
 * `locked`, `corrupt`, `disk-full`) and whose message says what to do.
 *
 * @example
 * ```ts
 * import { SqliteSessionStore } from 'muster-agent/sqlite';
 * const store = new SqliteSessionStore({ path: '.muster/sessions.db' });
 * const agent = createAgent({ model, sessionStore: store });
 * // ...
 * await agent.close();
 * store.close();
 * ```
 */
export class SqliteSessionStore implements SessionStore {
  readonly #db: Db;
  readonly #sql: (sql: string) => Statement;
  readonly #guard: SqliteGuard;
  readonly #log: SqliteEventLog;
  readonly #leases: SqliteLeases;
  /** The archive of large tool results, in the same file. */
  readonly archive: SessionArchive;
  /** The waits of parked runs (SPEC 15.1), in the same file. */
  readonly waits: SessionWaits;

  constructor(options: SqliteSessionStoreOptions) {
    assertValid(options, OPTION_KEYS, 'SqliteSessionStore options');
    const maxEvents = eventLogMax(options.eventLogMaxPerSession);
    const pollMs = eventLogPollMs(options.eventLogPollMs);
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.#db = openSqliteStore(options.path, {
      busyTimeoutMs,
      synchronous: options.synchronous ?? 'normal',
    });
    this.#guard = sqliteGuard({ path: options.path, busyTimeoutMs });
    this.#sql = statementCache(this.#db);
    this.archive = new SqliteArchive(this.#db, this.#guard, options.maxArchiveBytesPerSession);
    const log = new SqliteEventLog(this.#db, this.#guard, maxEvents, pollMs);
    this.#log = log;
    const leases = new SqliteLeases(this.#db, this.#sql, this.#guard);
    this.#leases = leases;
    this.waits = new SqliteWaits(
      this.#db,
      this.#guard,
      (sessionId, writeOptions, body) => leases.write(sessionId, writeOptions, body),
      {
        append: (sessionId, body) => log.appendNext(sessionId, body),
        committed: (sessionId) => log.committed(sessionId),
      },
    );
  }

  /** Stores a new session; fails with `SESSION_ALREADY_RUNNING` when its id is taken. */
  async create(state: SessionState, options?: SessionWriteOptions): Promise<void> {
    this.#leases.guardedWrite(state.id, options, (lease) => {
      const exists = this.#sql('SELECT 1 FROM muster_sessions WHERE id = ?').get(state.id);
      if (exists) throw existsError(state.id);
      this.#sql(
        `INSERT INTO muster_sessions (id, status, iteration, created_at, updated_at, final_content,
             usage, error, archive_refs, started_calls, message_count, final_output, principal,
             budget)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...sessionRowValues(state));
      this.#append(state.id, state.messages, 0, lease);
    });
  }

  /** The session's state, or `undefined` for an unknown id. */
  async get(sessionId: string): Promise<SessionState | undefined> {
    return this.#guard(() => {
      const row = this.#sql('SELECT * FROM muster_sessions WHERE id = ?').get(sessionId) as
        | SessionRow
        | undefined;
      if (!row) return undefined;
      const messages = this.#sql(
        'SELECT body FROM muster_messages WHERE session_id = ? ORDER BY seq',
      )
        .pluck()
        .all(sessionId);
      return rowToState(row, messages);
    });
  }

  /** A step commit: one transaction (PostgreSQL: one statement, one round trip). */
  async update(
    sessionId: string,
    patch: SessionPatch,
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult> {
    let steeringPending = false;
    let firstEventSeq: number | undefined;
    this.#leases.guardedWrite(sessionId, options, (lease) => {
      const row = this.#sql('SELECT * FROM muster_sessions WHERE id = ?').get(sessionId) as
        | SessionRow
        | undefined;
      if (!row) throw notFoundError(sessionId);
      const refs = [
        ...(JSON.parse(row.archive_refs as string) as string[]),
        ...(patch.appendArchiveRefs ?? []),
      ];
      const started = [
        ...(JSON.parse(row.started_calls as string) as string[]),
        ...(patch.appendStartedCalls ?? []),
      ];
      const usage = patch.addUsage
        ? addUsage(JSON.parse(row.usage as string) as Usage, patch.addUsage)
        : undefined;
      const count = Number(row.message_count);
      this.#sql(
        `UPDATE muster_sessions SET
             status = COALESCE(?, status), iteration = COALESCE(?, iteration),
             final_content = COALESCE(?, final_content), usage = COALESCE(?, usage),
             error = CASE WHEN ? THEN ? ELSE error END,
             final_output = CASE WHEN ? THEN ? ELSE final_output END,
             archive_refs = ?, started_calls = ?, message_count = ?, updated_at = ?,
             budget = CASE WHEN ? THEN ? ELSE budget END
           WHERE id = ?`,
      ).run(
        patch.status ?? null,
        patch.iteration ?? null,
        patch.finalContent ?? null,
        usage ? JSON.stringify(usage) : null,
        patch.error !== undefined ? 1 : 0,
        patch.error ? JSON.stringify(patch.error) : null,
        patch.finalOutput !== undefined ? 1 : 0,
        patch.finalOutput ? outputJson(patch.finalOutput.value) : null,
        JSON.stringify(refs),
        JSON.stringify(started),
        count + (patch.appendMessages?.length ?? 0),
        new Date().toISOString(),
        patch.budget !== undefined ? 1 : 0,
        patch.budget ? JSON.stringify(patch.budget) : null,
        sessionId,
      );
      this.#append(sessionId, patch.appendMessages ?? [], count, lease);
      if (patch.appendEvents)
        firstEventSeq = this.#log.append(sessionId, patch.appendEvents, Number(row.event_seq ?? 0));
      steeringPending = this.#log.hasSteering(sessionId);
    });
    if (firstEventSeq === undefined) return { steeringPending };
    this.#log.committed(sessionId);
    return { steeringPending, firstEventSeq };
  }

  /**
   * Appends events (fenced like `update`), numbered by the store like a step commit's; for
   * events that no step commit carries.
   */
  async appendEvents(
    sessionId: string,
    events: readonly SessionLogEntry[],
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult> {
    let firstEventSeq: number | undefined;
    this.#leases.guardedWrite(sessionId, options, () => {
      const last = this.#sql('SELECT event_seq FROM muster_sessions WHERE id = ?')
        .pluck()
        .get(sessionId) as number | undefined;
      if (last === undefined) throw notFoundError(sessionId);
      firstEventSeq = this.#log.append(sessionId, events, last);
    });
    if (firstEventSeq === undefined) return {};
    this.#log.committed(sessionId);
    return { firstEventSeq };
  }

  /** The kept events after `query.afterSeq`, oldest first. */
  async readEvents(
    sessionId: string,
    query: SessionEventQuery,
  ): Promise<readonly SessionLogEvent[]> {
    return this.#log.read(sessionId, query);
  }

  /**
   * Calls `listener` whenever events of the session may have been committed, by any process
   * the store can hear (PostgreSQL: LISTEN/NOTIFY; SQLite: the same host, by polling);
   * returns the function that stops. Without it, watchers poll `readEvents`.
   */
  watchEvents(sessionId: string, listener: () => void): () => void {
    return this.#log.watch(sessionId, listener);
  }

  /**
   * Queues a user message for the session's run (any process); `SESSION_NOT_FOUND` for an
   * unknown session.
   */
  async steer(sessionId: string, text: string): Promise<void> {
    this.#guard(() =>
      this.#db
        .transaction(() => {
          if (!this.#sql('SELECT 1 FROM muster_sessions WHERE id = ?').get(sessionId))
            throw notFoundError(sessionId);
          this.#log.steer(sessionId, text);
        })
        .immediate(),
    );
  }

  /**
   * Takes the queued steering messages of the session, oldest first, and appends them to its
   * transcript as user messages, in one transaction fenced like `update`: each is taken once.
   * With `take.event`, a store with a log logs one event per message in that transaction.
   */
  async takeSteering(
    sessionId: string,
    options?: SessionWriteOptions,
    take?: SteeringTake,
  ): Promise<string[]> {
    let texts: string[] = [];
    let first: number | undefined;
    this.#leases.guardedWrite(sessionId, options, (lease) => {
      const row = this.#sql(
        'SELECT message_count, event_seq FROM muster_sessions WHERE id = ?',
      ).get(sessionId) as { message_count: number; event_seq: number } | undefined;
      if (row === undefined) throw notFoundError(sessionId);
      const count = row.message_count;
      texts = this.#log.take(sessionId);
      if (texts.length === 0) return;
      if (take?.event)
        first = this.#log.append(
          sessionId,
          texts.map((text) => logEntry(take.event!(text))),
          row.event_seq,
        );
      const messages = texts.map((text) => ({
        role: 'user' as const,
        content: [{ type: 'text' as const, text }],
      }));
      this.#sql('UPDATE muster_sessions SET message_count = ?, updated_at = ? WHERE id = ?').run(
        count + messages.length,
        new Date().toISOString(),
        sessionId,
      );
      this.#append(sessionId, messages, count, lease);
    });
    if (first !== undefined) {
      this.#log.committed(sessionId);
      take?.logged?.(first);
    }
    return texts;
  }

  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a live lease holds it. */
  async delete(sessionId: string): Promise<void> {
    this.#guard(() =>
      this.#db
        .transaction(() => {
          if (isLive(this.#leases.current(sessionId), Date.now())) throw heldError(sessionId);
          for (const table of ['muster_messages', 'muster_archive', 'muster_waits'])
            this.#sql(`DELETE FROM ${table} WHERE session_id = ?`).run(sessionId);
          this.#log.drop(sessionId);
          this.#sql('DELETE FROM muster_sessions WHERE id = ?').run(sessionId);
        })
        .immediate(),
    );
  }

  /** One page of the stored sessions, ordered by id. */
  async list(query?: SessionListQuery): Promise<SessionPage> {
    const limit = pageSize(query);
    const rows = this.#guard(
      () =>
        this.#sql(
          `SELECT * FROM muster_sessions WHERE id > ? AND (? IS NULL OR status = ?) ORDER BY id LIMIT ?`,
        ).all(
          query?.cursor ?? '',
          query?.status ?? null,
          query?.status ?? null,
          limit + 1,
        ) as SessionRow[],
    );
    const sessions = rows.slice(0, limit).map(rowToSummary);
    return rows.length > limit ? { sessions, nextCursor: sessions.at(-1)!.id } : { sessions };
  }

  /**
   * True while a live lease holds the session (its run goes on in some process). A watch asks
   * it of a `running` session that logs nothing: `running` with no live lease is a run that
   * died (SPEC 15.2).
   */
  async leased(sessionId: string): Promise<boolean> {
    return this.#guard(() => isLive(this.#leases.current(sessionId), Date.now()));
  }

  /**
   * Claims a session for one running owner for `ttlMs`; resolves `undefined` while another
   * owner holds a live lease. An expired lease is taken over, with a higher fencing token.
   */
  async acquire(
    sessionId: string,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    return this.#leases.acquire(sessionId, owner, ttlMs);
  }

  /** Closes the file. Idempotent. */
  close(): void {
    this.#log.close();
    if (this.#db.open) this.#db.close();
  }

  #append(
    sessionId: string,
    messages: SessionState['messages'],
    from: number,
    lease: LeaseRecord | undefined,
  ): void {
    const insert = this.#sql(
      `INSERT INTO muster_messages (session_id, seq, body, lease_token, lease_owner, written_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    const now = Date.now();
    for (const [i, m] of messages.entries())
      insert.run(
        sessionId,
        from + i,
        JSON.stringify(m),
        lease?.token ?? null,
        lease?.owner ?? null,
        now,
      );
  }
}
