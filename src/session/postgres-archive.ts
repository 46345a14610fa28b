import type { SessionArchive, SessionArchiveItem } from './session-archive.js';
import { archiveBound, assertFits, refsToEvict } from './archive-bound.js';
import { newStoredRef } from './session-rules.js';
import { rowToItem } from './stored-rows.js';
import type { ArchiveRow } from './stored-rows.js';
import type { PoolClient } from 'pg';

/** Runs statements on one connection, inside a transaction. */
export type Transact = <T>(body: (client: PoolClient) => Promise<T>) => Promise<T>;

/** The archive of a `PostgresSessionStore`: items in the same database, data as bytea. */
export class PostgresArchive implements SessionArchive {
  readonly #s: string;
  readonly #transact: Transact;
  readonly #max: number;

  constructor(quotedSchema: string, transact: Transact, maxBytesPerSession: number | undefined) {
    this.#s = quotedSchema;
    this.#transact = transact;
    this.#max = archiveBound(maxBytesPerSession);
  }

  /** Stores an item, giving it a new `ref` and its creation time; returns the stored item. */
  async put(item: Omit<SessionArchiveItem, 'ref' | 'createdAt'>): Promise<SessionArchiveItem> {
    assertFits(item.bytes, this.#max);
    const stored: SessionArchiveItem = {
      ...item,
      ref: newStoredRef(),
      createdAt: new Date().toISOString(),
    };
    await this.#transact(async (c) => {
      // one writer per session archive at a time, so the bound holds under concurrency
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `muster-archive:${item.sessionId}`,
      ]);
      const kept = await c.query<{ ref: string; bytes: number }>(
        `SELECT ref, bytes FROM ${this.#s}.muster_archive WHERE session_id = $1 AND NOT evicted ORDER BY seq`,
        [item.sessionId],
      );
      const evict = refsToEvict(kept.rows, item.bytes, this.#max);
      if (evict.length > 0)
        await c.query(
          `UPDATE ${this.#s}.muster_archive SET evicted = true, text = NULL, data = NULL WHERE ref = ANY($1)`,
          [evict],
        );
      await c.query(
        `INSERT INTO ${this.#s}.muster_archive (ref, session_id, kind, mime_type, bytes, text, data,
           tool_name, call_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          stored.ref,
          stored.sessionId,
          stored.kind,
          stored.mimeType,
          stored.bytes,
          stored.text ?? null,
          stored.data !== undefined ? Buffer.from(stored.data, 'base64') : null,
          stored.toolName,
          stored.callId,
          stored.createdAt,
        ],
      );
    });
    return stored;
  }

  /** The item `ref` of the session, or `undefined` when there is none (or it was evicted). */
  async get(sessionId: string, ref: string): Promise<SessionArchiveItem | undefined> {
    const found = await this.#transact((c) =>
      c.query<ArchiveRow>(
        `SELECT * FROM ${this.#s}.muster_archive WHERE ref = $1 AND session_id = $2 AND NOT evicted`,
        [ref, sessionId],
      ),
    );
    return found.rows[0] ? rowToItem(found.rows[0]) : undefined;
  }

  /** The session's items, oldest first. */
  async list(sessionId: string): Promise<readonly SessionArchiveItem[]> {
    const found = await this.#transact((c) =>
      c.query<ArchiveRow>(
        `SELECT * FROM ${this.#s}.muster_archive WHERE session_id = $1 AND NOT evicted ORDER BY seq`,
        [sessionId],
      ),
    );
    return found.rows.map(rowToItem);
  }

  /** Removes every item of the session. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.#transact((c) =>
      c.query(`DELETE FROM ${this.#s}.muster_archive WHERE session_id = $1`, [sessionId]),
    );
  }

  /** Whether `ref` was stored for the session and evicted since to keep within its bound. */
  async wasEvicted(sessionId: string, ref: string): Promise<boolean> {
    const found = await this.#transact((c) =>
      c.query(
        `SELECT 1 FROM ${this.#s}.muster_archive WHERE ref = $1 AND session_id = $2 AND evicted`,
        [ref, sessionId],
      ),
    );
    return found.rows.length > 0;
  }
}
