import type { Database, Statement } from 'better-sqlite3';
import { statementCache } from './sqlite-statements.js';
import type { SqliteGuard } from './sqlite-failure.js';
import type { SessionArchive, SessionArchiveItem } from './session-archive.js';
import { archiveBound, assertFits, refsToEvict } from './archive-bound.js';
import { newStoredRef } from './session-rules.js';
import { rowToItem } from './stored-rows.js';
import type { ArchiveRow } from './stored-rows.js';

/** The archive of a {@link SqliteSessionStore}: items in the same file, binary data as blobs. */
export class SqliteArchive implements SessionArchive {
  readonly #db: Database;
  readonly #sql: (sql: string) => Statement;
  readonly #max: number;
  readonly #guard: SqliteGuard;

  constructor(db: Database, guard: SqliteGuard, maxBytesPerSession: number | undefined) {
    this.#db = db;
    this.#guard = guard;
    this.#sql = statementCache(this.#db);
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
    const put = this.#db.transaction(() => {
      const kept = this.#sql(
        'SELECT ref, bytes FROM muster_archive WHERE session_id = ? AND evicted = 0 ORDER BY seq',
      ).all(item.sessionId) as { ref: string; bytes: number }[];
      const evict = this.#sql(
        'UPDATE muster_archive SET evicted = 1, text = NULL, data = NULL WHERE ref = ?',
      );
      for (const ref of refsToEvict(kept, item.bytes, this.#max)) evict.run(ref);
      const seq = this.#sql(
        'SELECT COALESCE(MAX(seq), 0) + 1 FROM muster_archive WHERE session_id = ?',
      )
        .pluck()
        .get(item.sessionId) as number;
      this.#sql(
        `INSERT INTO muster_archive (ref, session_id, seq, kind, mime_type, bytes, text, data,
               tool_name, call_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        stored.ref,
        stored.sessionId,
        seq,
        stored.kind,
        stored.mimeType,
        stored.bytes,
        stored.text ?? null,
        stored.data !== undefined ? Buffer.from(stored.data, 'base64') : null,
        stored.toolName,
        stored.callId,
        stored.createdAt,
      );
    });
    this.#guard(() => put.immediate());
    return stored;
  }

  /** The item `ref` of the session, or `undefined` when there is none (or it was evicted). */
  async get(sessionId: string, ref: string): Promise<SessionArchiveItem | undefined> {
    const row = this.#guard(
      () =>
        this.#sql(
          'SELECT * FROM muster_archive WHERE ref = ? AND session_id = ? AND evicted = 0',
        ).get(ref, sessionId) as ArchiveRow | undefined,
    );
    return row ? rowToItem(row) : undefined;
  }

  /** The session's items, oldest first. */
  async list(sessionId: string): Promise<readonly SessionArchiveItem[]> {
    const rows = this.#guard(
      () =>
        this.#sql(
          'SELECT * FROM muster_archive WHERE session_id = ? AND evicted = 0 ORDER BY seq',
        ).all(sessionId) as ArchiveRow[],
    );
    return rows.map(rowToItem);
  }

  /** Removes every item of the session. */
  async deleteSession(sessionId: string): Promise<void> {
    this.#guard(() => this.#sql('DELETE FROM muster_archive WHERE session_id = ?').run(sessionId));
  }

  /** Whether `ref` was stored for the session and evicted since to keep within its bound. */
  async wasEvicted(sessionId: string, ref: string): Promise<boolean> {
    return this.#guard(
      () =>
        this.#sql(
          'SELECT 1 FROM muster_archive WHERE ref = ? AND session_id = ? AND evicted = 1',
        ).get(ref, sessionId) !== undefined,
    );
  }
}
