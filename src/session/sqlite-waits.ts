import type { Database, Statement } from 'better-sqlite3';
import { statementCache } from './sqlite-statements.js';
import type { SqliteGuard } from './sqlite-failure.js';
import type { SessionWriteOptions } from './session-store.js';
import type {
  DecideOptions,
  SessionWaits,
  Wait,
  WaitDecision,
  WaitPage,
  WaitQuery,
} from './session-waits.js';
import { pageSize } from './session-rules.js';
import { checkDecision } from './wait-rules.js';
import { waitCursor, waitListWhere, waitRowValues } from './stored-rows.js';

/**
 * Runs `body` in one immediate transaction of the store, after the write's lease check
 * (`SqliteSessionStore`'s own write guard, so a wait is fenced like any other write).
 */
export type SqliteLeasedWrite = (
  sessionId: string,
  options: SessionWriteOptions | undefined,
  body: () => void,
) => void;

/** How a decision logs its event: inside its transaction, then wakes this process's watchers. */
export interface SqliteDecisionLog {
  append(sessionId: string, body: { readonly type: string }): void;
  committed(sessionId: string): void;
}

/**
 * The waits of a `SqliteSessionStore`, in the same file. A decision reads and updates the
 * wait's row in one immediate transaction, which takes the file's write lock first: of
 * concurrent decisions, from this process or another one on the file, exactly one finds the
 * wait pending.
 */
export class SqliteWaits implements SessionWaits {
  readonly #db: Database;
  readonly #sql: (sql: string) => Statement;
  readonly #write: SqliteLeasedWrite;
  readonly #guard: SqliteGuard;
  readonly #log: SqliteDecisionLog | undefined;

  /** `log` logs a decision's event in its transaction (the store's event log). */
  constructor(db: Database, guard: SqliteGuard, write: SqliteLeasedWrite, log?: SqliteDecisionLog) {
    this.#log = log;
    this.#db = db;
    this.#guard = guard;
    this.#sql = statementCache(db);
    this.#write = write;
  }

  /**
   * Stores a wait, or replaces the stored one of the same id while that one is pending; a
   * decided wait stays as it was (a put never undoes a decision).
   */
  async put(wait: Wait, options?: SessionWriteOptions): Promise<void> {
    const values = waitRowValues(wait);
    this.#guard(() =>
      this.#write(wait.sessionId, options, () => {
        this.#sql(
          `INSERT INTO muster_waits (session_id, id, kind, status, created_at, expires_at, body)
             VALUES (?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (session_id, id) DO UPDATE SET kind = excluded.kind,
               status = excluded.status, created_at = excluded.created_at,
               expires_at = excluded.expires_at, body = excluded.body
             WHERE muster_waits.status = 'pending'`,
        ).run(...values);
      }),
    );
  }

  /** The wait `waitId` of the session, or `undefined` when there is none. */
  async get(sessionId: string, waitId: string): Promise<Wait | undefined> {
    return this.#guard(() => this.#read(sessionId, waitId));
  }

  /** One page of the waits that match `query`. */
  async list(query: WaitQuery = {}): Promise<WaitPage> {
    const limit = pageSize({ ...(query.limit !== undefined ? { limit: query.limit } : {}) });
    const { where, values } = waitListWhere(query, () => '?');
    const bodies = this.#guard(
      () =>
        this.#sql(`SELECT body FROM muster_waits ${where} ORDER BY session_id, id LIMIT ?`)
          .pluck()
          .all(...values, limit + 1) as string[],
    );
    const waits = bodies.slice(0, limit).map((b) => JSON.parse(b) as Wait);
    return bodies.length > limit ? { waits, nextCursor: waitCursor(waits.at(-1)!) } : { waits };
  }

  /**
   * Records a decision on a pending wait and returns the decided wait. Fails with
   * `WAIT_NOT_FOUND` for an unknown wait, one already decided (the message says so) or an
   * expired one (the message says so); with `WAIT_STALE` when `options.fingerprint` differs
   * from the stored one. A failed call changes nothing.
   */
  async decide(
    sessionId: string,
    waitId: string,
    decision: WaitDecision,
    options?: DecideOptions,
  ): Promise<Wait> {
    const now = options?.now ?? Date.now();
    const decide = this.#db.transaction(() => {
      const wait = this.#read(sessionId, waitId);
      const checked = checkDecision(sessionId, waitId, wait, decision, { ...options, now });
      const decided: Wait = {
        ...wait!,
        status: 'decided',
        decision: checked,
        decidedAt: new Date(now).toISOString(),
      };
      this.#sql(
        `UPDATE muster_waits SET status = 'decided', body = ? WHERE session_id = ? AND id = ?`,
      ).run(JSON.stringify(decided), sessionId, waitId);
      if (options?.event) this.#log?.append(sessionId, options.event(decided));
      return decided;
    });
    const decided = this.#guard(() => decide.immediate());
    if (options?.event) this.#log?.committed(sessionId);
    return decided;
  }

  /** Removes waits once a resumed run has used them (or replaced them). */
  async remove(
    sessionId: string,
    waitIds: readonly string[],
    options?: SessionWriteOptions,
  ): Promise<void> {
    this.#guard(() =>
      this.#write(sessionId, options, () => {
        const remove = this.#sql('DELETE FROM muster_waits WHERE session_id = ? AND id = ?');
        for (const id of waitIds) remove.run(sessionId, id);
      }),
    );
  }

  #read(sessionId: string, waitId: string): Wait | undefined {
    const body = this.#sql('SELECT body FROM muster_waits WHERE session_id = ? AND id = ?')
      .pluck()
      .get(sessionId, waitId) as string | undefined;
    return body === undefined ? undefined : (JSON.parse(body) as Wait);
  }
}
