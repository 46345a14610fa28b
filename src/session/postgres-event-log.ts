import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { SessionEventQuery, SessionLogEntry, SessionLogEvent } from './session-event-log.js';
import { eventPageSize, logEntry } from './session-event-log.js';
import { notFoundError } from './session-rules.js';
import type { Transact } from './postgres-archive.js';
import type { PostgresConnection } from './postgres-connection.js';

/** The longest channel name PostgreSQL takes (NAMEDATALEN - 1 bytes). */
const MAX_CHANNEL_BYTES = 63;

/**
 * The NOTIFY channel of a schema's event log: `muster_events.<schema>`, or, when that is longer
 * than PostgreSQL takes (`pg_notify` refuses it, LISTEN cuts it), `muster_events.` and a hash
 * of the schema name.
 */
export function eventChannel(schema: string): string {
  const name = `muster_events.${schema}`;
  if (Buffer.byteLength(name) <= MAX_CHANNEL_BYTES) return name;
  return `muster_events.${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
}

/**
 * The event log and steering queue of a `PostgresSessionStore`, in the same database. Step
 * commits write the log (`PostgresStepCommit`); this reads it, logs a decision's event in the
 * decision's transaction, queues and takes steering, and hears commits of any replica with
 * LISTEN on one connection of its own, held only while someone watches.
 */
export class PostgresEventLog {
  readonly #s: string;
  readonly #transact: Transact;
  readonly #db: PostgresConnection;
  readonly #channel: string;
  readonly #max: number;
  readonly #listeners = new Map<string, Set<() => void>>();
  #listening: Promise<ListeningClient | undefined> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #backoffMs = 0;

  constructor(
    quotedSchema: string,
    channel: string,
    max: number,
    transact: Transact,
    db: PostgresConnection,
  ) {
    this.#s = quotedSchema;
    this.#channel = channel;
    this.#max = max;
    this.#transact = transact;
    this.#db = db;
  }

  /** The kept events after `query.afterSeq`, oldest first. */
  async read(sessionId: string, query: SessionEventQuery): Promise<SessionLogEvent[]> {
    const rows = await this.#transact((c) =>
      c.query<{ seq: string; type: string; json: string }>(
        `SELECT seq, type, body AS json FROM ${this.#s}.muster_events
         WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [sessionId, query.afterSeq, eventPageSize(query)],
      ),
    );
    return rows.rows.map((r) => ({ seq: Number(r.seq), type: r.type, json: r.json }));
  }

  /**
   * Appends entries in the caller's transaction, numbered from the session row's `event_seq`
   * under its row lock (the UPDATE takes it), trims the log and notifies, in one statement;
   * returns the first number given (undefined when there were none, or no such session).
   */
  async append(
    c: PoolClient,
    sessionId: string,
    entries: readonly SessionLogEntry[],
  ): Promise<number | undefined> {
    if (entries.length === 0) return undefined;
    const result = await c.query<{ seq_before: string }>(
      `WITH u AS (
         UPDATE ${this.#s}.muster_sessions SET event_seq = event_seq + $4::bigint WHERE id = $1
         RETURNING event_seq - $4::bigint AS seq_before
       ), e AS (
         INSERT INTO ${this.#s}.muster_events (session_id, seq, type, body)
         SELECT $1, u.seq_before + ev.i, ev.type,
           '{"seq":' || (u.seq_before + ev.i)::text || ',' || substr(ev.body, 2)
         FROM u, unnest($2::text[], $3::text[]) WITH ORDINALITY AS ev(type, body, i)
         WHERE u.seq_before + ev.i > u.seq_before + $4::bigint - $5::bigint
       ), d AS (
         DELETE FROM ${this.#s}.muster_events
         WHERE session_id = $1 AND seq <= (SELECT seq_before FROM u) + $4::bigint - $5::bigint
       )
       SELECT seq_before, pg_notify($6, $1) FROM u`,
      [
        sessionId,
        entries.map((e) => e.type),
        entries.map((e) => e.json),
        entries.length,
        this.#max,
        this.#channel,
      ],
    );
    const row = result.rows[0];
    return row ? Number(row.seq_before) + 1 : undefined;
  }

  /** Logs `body` as the session's next event, in the caller's transaction (a decision's). */
  async appendNext(
    c: PoolClient,
    sessionId: string,
    body: { readonly type: string },
  ): Promise<void> {
    await this.append(c, sessionId, [logEntry(body)]);
  }

  /** Queues a steering message for the session's run. */
  async steer(sessionId: string, text: string): Promise<void> {
    const inserted = await this.#transact((c) =>
      c.query(
        `INSERT INTO ${this.#s}.muster_steering (session_id, text)
         SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM ${this.#s}.muster_sessions WHERE id = $1)`,
        [sessionId, text],
      ),
    );
    if (inserted.rowCount !== 1) throw notFoundError(sessionId);
  }

  /**
   * Takes the session's steering, oldest first, and appends it to the transcript, in the
   * caller's (fenced) transaction.
   */
  async take(
    c: PoolClient,
    sessionId: string,
    lease: { token: string; owner: string | null } | undefined,
  ): Promise<string[]> {
    const taken = await c.query<{ text: string }>(
      `DELETE FROM ${this.#s}.muster_steering WHERE session_id = $1 RETURNING id, text`,
      [sessionId],
    );
    const rows = (taken.rows as { id: string; text: string }[]).sort(
      (a, b) => Number(a.id) - Number(b.id),
    );
    if (rows.length === 0) return [];
    const texts = rows.map((r) => r.text);
    const messages = texts.map((text) => ({ role: 'user', content: [{ type: 'text', text }] }));
    const count = await c.query<{ first: number }>(
      `UPDATE ${this.#s}.muster_sessions SET message_count = message_count + $2, updated_at = $3
       WHERE id = $1 RETURNING message_count - $2 AS first`,
      [sessionId, messages.length, new Date().toISOString()],
    );
    if (count.rows.length === 0) throw notFoundError(sessionId);
    await c.query(
      `INSERT INTO ${this.#s}.muster_messages (session_id, seq, body, lease_token, lease_owner)
       SELECT $1, $2 + i - 1, m, $4, $5 FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(m, i)`,
      [
        sessionId,
        count.rows[0]!.first,
        JSON.stringify(messages),
        lease?.token ?? null,
        lease?.owner ?? null,
      ],
    );
    return texts;
  }

  /** Calls `listener` when the session logs events; returns the function that stops. */
  watch(sessionId: string, listener: () => void): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) this.#listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    this.#listen();
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(sessionId) === set)
        this.#listeners.delete(sessionId);
      if (this.#listeners.size === 0) void this.#unlisten();
    };
  }

  /** Gives the listening connection back (the store closes). */
  async close(): Promise<void> {
    this.#listeners.clear();
    await this.#unlisten();
  }

  /**
   * Listens on a connection of its own while anyone watches. A connection that fails (on
   * LISTEN, or later) is destroyed, never returned to the pool, and its handlers go with it;
   * every watcher reads again, and LISTEN is tried anew after a growing delay (250 ms up to
   * 5 s). Until it holds, each attempt wakes the watchers: they poll at that pace.
   */
  #listen(): void {
    if (this.#listening || this.#retry || this.#listeners.size === 0) return;
    let client: PoolClient | undefined;
    const onNotification = (msg: { channel: string; payload?: string | undefined }) => {
      if (msg.channel !== this.#channel || msg.payload === undefined) return;
      const set = this.#listeners.get(msg.payload);
      if (set) for (const l of [...set]) l();
    };
    const drop = () => {
      if (!client) return;
      const c = client;
      client = undefined;
      c.off('notification', onNotification);
      c.off('error', onError);
      // a connection that failed is destroyed, not pooled
      c.on('error', ignore);
      c.release(true);
    };
    const onError = () => {
      drop();
      if (this.#listening === listening) this.#listening = undefined;
      this.#wakeAll();
      this.#retryLater();
    };
    const listening: Promise<ListeningClient | undefined> = (async () => {
      client = await this.#db.dedicated();
      client.on('notification', onNotification);
      client.on('error', onError);
      await client.query(`LISTEN "${this.#channel}"`);
      this.#backoffMs = 0;
      // a commit between the watcher's first read and LISTEN: read again
      this.#wakeAll();
      return {
        drop: () => {
          const c = client;
          client = undefined;
          c?.off('notification', onNotification);
          c?.off('error', onError);
          return c;
        },
      };
    })().catch(() => {
      drop();
      if (this.#listening === listening) this.#listening = undefined;
      this.#wakeAll();
      this.#retryLater();
      return undefined;
    });
    this.#listening = listening;
  }

  /** Tries LISTEN again after the next delay, while anyone watches. */
  #retryLater(): void {
    if (this.#retry || this.#listeners.size === 0) return;
    this.#backoffMs = Math.min(Math.max(this.#backoffMs * 2, 250), 5000);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      // the watchers read again (a poll), then LISTEN is tried anew
      this.#wakeAll();
      this.#listen();
    }, this.#backoffMs);
  }

  async #unlisten(): Promise<void> {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#backoffMs = 0;
    const listening = this.#listening;
    this.#listening = undefined;
    const held = await listening;
    const client = held?.drop();
    // destroyed, not pooled: its LISTEN ends with it, and no handler of this log stays on a
    // connection the pool hands out again
    client?.on('error', ignore);
    client?.release(true);
  }

  #wakeAll(): void {
    for (const set of [...this.#listeners.values()]) for (const l of [...set]) l();
  }
}

/** The listening connection, to take back with its handlers removed. */
interface ListeningClient {
  /** Removes the handlers; returns the connection unless it failed meanwhile. */
  drop(): PoolClient | undefined;
}

/** Errors of a connection being destroyed. */
const ignore = (): void => {};
