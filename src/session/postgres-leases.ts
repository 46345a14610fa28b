import type { PoolClient } from 'pg';
import type { SessionLease, SessionWriteOptions } from './session-store.js';
import { heldError, leaseLostError } from './session-rules.js';
import type { Transact } from './postgres-archive.js';

/** A session's lease row as a write sees it (share-locked), `live` judged by the server. */
export interface PostgresLeaseCheck {
  readonly token: string;
  readonly owner: string | null;
  readonly live: boolean;
}

/**
 * The session leases of a `PostgresSessionStore` (`muster_leases`, in the same schema): taking
 * one in one statement (the fencing token grows by one per owner; time is the server's),
 * renewing and releasing it, and the fence of every write but the step commit (which checks it
 * in its own statement, see `PostgresStepCommit`): one transaction that share-locks the lease
 * row and checks it before its body.
 */
export class PostgresLeases {
  readonly #s: string;
  readonly #transact: Transact;

  constructor(quotedSchema: string, transact: Transact) {
    this.#s = quotedSchema;
    this.#transact = transact;
  }

  /** Takes the session's lease for `owner` unless another holds it live. */
  async acquire(
    sessionId: string,
    owner: string,
    ttlMs: number,
  ): Promise<SessionLease | undefined> {
    const got = await this.#transact((c) =>
      c.query<{ token: string }>(
        `INSERT INTO ${this.#s}.muster_leases AS l (session_id, token, owner, expires_at)
         VALUES ($1, 1, $2, now() + $3 * interval '1 millisecond')
         ON CONFLICT (session_id) DO UPDATE SET token = l.token + 1, owner = excluded.owner,
           expires_at = excluded.expires_at
         WHERE l.owner IS NULL OR l.expires_at <= now()
         RETURNING token`,
        [sessionId, owner, ttlMs],
      ),
    );
    if (got.rows.length === 0) return undefined;
    const token = Number(got.rows[0]!.token);
    return {
      token,
      owner,
      renew: async () => {
        const renewed = await this.#transact((c) =>
          c.query(
            `UPDATE ${this.#s}.muster_leases SET expires_at = now() + $3 * interval '1 millisecond'
             WHERE session_id = $1 AND token = $2 AND owner IS NOT NULL AND expires_at > now()`,
            [sessionId, token, ttlMs],
          ),
        );
        if (renewed.rowCount !== 1) throw leaseLostError(sessionId);
      },
      release: async () => {
        await this.#transact((c) =>
          c.query(
            `UPDATE ${this.#s}.muster_leases SET owner = NULL, expires_at = now()
             WHERE session_id = $1 AND token = $2`,
            [sessionId, token],
          ),
        );
      },
    };
  }

  /** The session's lease row, share-locked until the transaction of `c` ends. */
  async current(c: PoolClient, sessionId: string): Promise<PostgresLeaseCheck | undefined> {
    const found = await c.query<PostgresLeaseCheck>(
      `SELECT token, owner, (owner IS NOT NULL AND expires_at > now()) AS live
       FROM ${this.#s}.muster_leases WHERE session_id = $1 FOR SHARE`,
      [sessionId],
    );
    return found.rows[0];
  }

  /**
   * Runs `body` in one transaction after checking (and share-locking) the write's lease: a
   * write with no lease needs none live, a write with one needs it current. `body` gets the
   * lease row when the write holds one.
   */
  async write(
    sessionId: string,
    options: SessionWriteOptions | undefined,
    body: (c: PoolClient, lease: PostgresLeaseCheck | undefined) => Promise<void>,
  ): Promise<void> {
    await this.#transact(async (c) => {
      const lease = await this.current(c, sessionId);
      const token = options?.lease?.token;
      if (token === undefined) {
        if (lease?.live) throw heldError(sessionId);
      } else if (!lease?.live || Number(lease.token) !== token) {
        throw leaseLostError(sessionId);
      }
      await body(c, token === undefined ? undefined : lease);
    });
  }
}
