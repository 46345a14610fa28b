import type { Database, Statement } from 'better-sqlite3';
import type { SessionLease, SessionWriteOptions } from './session-store.js';
import type { LeaseRecord } from './session-rules.js';
import { FIRST_TOKEN, heldError, isLive, leaseLostError, writeAllowed } from './session-rules.js';
import type { SqliteGuard } from './sqlite-failure.js';

interface LeaseRow {
  readonly token: number;
  readonly owner: string | null;
  readonly expires_at: number;
}

/**
 * The session leases of a `SqliteSessionStore` (`muster_leases`, in the same file): taking one
 * (the fencing token grows by one per owner), renewing and releasing it, and the fence every
 * write passes: one immediate transaction that checks the write's lease before its body.
 */
export class SqliteLeases {
  readonly #db: Database;
  readonly #sql: (sql: string) => Statement;
  readonly #guard: SqliteGuard;

  constructor(db: Database, sql: (sql: string) => Statement, guard: SqliteGuard) {
    this.#db = db;
    this.#sql = sql;
    this.#guard = guard;
  }

  /** Takes the session's lease for `owner` unless another holds it live. */
  acquire(sessionId: string, owner: string, ttlMs: number): SessionLease | undefined {
    const token = this.#guard(() =>
      this.#db
        .transaction(() => {
          const now = Date.now();
          const current = this.current(sessionId);
          if (isLive(current, now)) return undefined;
          const next = (current?.token ?? FIRST_TOKEN - 1) + 1;
          this.#sql(
            `INSERT INTO muster_leases (session_id, token, owner, expires_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, owner = excluded.owner,
               expires_at = excluded.expires_at`,
          ).run(sessionId, next, owner, now + ttlMs);
          return next;
        })
        .immediate(),
    );
    if (token === undefined) return undefined;
    return {
      token,
      owner,
      renew: async () => {
        const now = Date.now();
        const changed = this.#guard(
          () =>
            this.#sql(
              `UPDATE muster_leases SET expires_at = ? WHERE session_id = ? AND token = ?
               AND owner IS NOT NULL AND expires_at > ?`,
            ).run(now + ttlMs, sessionId, token, now).changes,
        );
        if (changed !== 1) throw leaseLostError(sessionId);
      },
      release: async () => {
        this.#guard(() =>
          this.#sql(
            'UPDATE muster_leases SET owner = NULL, expires_at = 0 WHERE session_id = ? AND token = ?',
          ).run(sessionId, token),
        );
      },
    };
  }

  /** The session's lease as stored (live or not); inside the caller's transaction. */
  current(sessionId: string): LeaseRecord | undefined {
    const row = this.#sql(
      'SELECT token, owner, expires_at FROM muster_leases WHERE session_id = ?',
    ).get(sessionId) as LeaseRow | undefined;
    if (!row) return undefined;
    return {
      token: row.token,
      ...(row.owner !== null ? { owner: row.owner } : {}),
      expiresAt: row.expires_at,
    };
  }

  /**
   * Runs `body` in one immediate transaction after checking the write's lease: a write with no
   * lease needs none live, a write with one needs it current. `body` gets the lease record
   * when the write holds one. Failures are not typed here (see {@link guardedWrite}).
   */
  write(
    sessionId: string,
    options: SessionWriteOptions | undefined,
    body: (lease: LeaseRecord | undefined) => void,
  ): void {
    this.#db
      .transaction(() => {
        const lease = this.current(sessionId);
        const token = options?.lease?.token;
        if (!writeAllowed(lease, token, Date.now()))
          throw token === undefined ? heldError(sessionId) : leaseLostError(sessionId);
        body(token === undefined ? undefined : lease);
      })
      .immediate();
  }

  /** {@link write}, its failures typed. */
  guardedWrite(
    sessionId: string,
    options: SessionWriteOptions | undefined,
    body: (lease: LeaseRecord | undefined) => void,
  ): void {
    this.#guard(() => this.write(sessionId, options, body));
  }
}
