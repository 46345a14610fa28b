import type { Pool, PoolClient } from 'pg';
import { MusterError } from '../errors/index.js';
import { assertValid, checkedElsewhere, shape } from '../util/index.js';
import type { Check } from '../util/index.js';
import type { SessionArchive } from './session-archive.js';
import type { SessionWaits } from './session-waits.js';
import type {
  SessionLease,
  SessionListQuery,
  SessionPage,
  SessionPatch,
  SessionState,
  SessionStatus,
  SessionStore,
  SessionWriteOptions,
} from './session-store.js';
import { existsError, heldError, notFoundError, pageSize } from './session-rules.js';
import { quoteSchema } from './postgres-schema.js';
import { DEFAULT_POSTGRES_BOUNDS, PostgresConnection } from './postgres-connection.js';
import { PostgresArchive } from './postgres-archive.js';
import type { Transact } from './postgres-archive.js';
import { linkRootSql, PostgresWaits } from './postgres-waits.js';
import { PostgresEventLog, eventChannel } from './postgres-event-log.js';
import { PostgresStepCommit } from './postgres-step-commit.js';
import { PostgresLeases } from './postgres-leases.js';
import type { PostgresLeaseCheck } from './postgres-leases.js';
import type { StepCommitRow } from './postgres-step-commit.js';
import { eventLogMax, logEntry } from './session-event-log.js';
import type {
  SessionEventQuery,
  SessionLogEntry,
  SessionLogEvent,
  SessionUpdateResult,
  SteeringTake,
} from './session-event-log.js';
import { rowToState, rowToSummary, sessionRowValues } from './stored-rows.js';
import type { DecisionHook, DispatchableStore, SessionDispatchState } from './session-dispatch.js';
import { readFleet } from './postgres-fleet.js';
import type { FleetQuery, FleetView, SessionFleetStore } from './session-fleet.js';
import type { SessionRow } from './stored-rows.js';

/**
 * Options of {@link PostgresSessionStore}: a connection string (the store makes its pool,
 * bounded by `connectTimeoutMs` and `queryTimeoutMs`) or a pool the host owns (bound it with
 * the pool's own `connectionTimeoutMillis`, `query_timeout`, `statement_timeout` and
 * `keepAlive`).
 */
export type PostgresSessionStoreOptions = (
  | {
      readonly connectionString: string;
      readonly pool?: undefined;
      /**
       * How long opening a connection may take, in ms (default 10000), the pool's
       * `connectionTimeoutMillis`: a server that does not answer (packets dropped by a
       * firewall or a network partition) fails the request with `SESSION_STORE_FAILED`,
       * reason `server-unreachable`, instead of hanging it.
       */
      readonly connectTimeoutMs?: number;
      /**
       * How long one statement may take, in ms (default 30000): the server's
       * `statement_timeout` cancels a slow one, and the driver's `query_timeout` gives up on a
       * server that went silent mid-request (`SESSION_STORE_FAILED`, `server-unreachable`).
       * The connections also send TCP keepalive probes.
       */
      readonly queryTimeoutMs?: number;
    }
  | {
      readonly pool: Pool;
      readonly connectionString?: undefined;
      readonly connectTimeoutMs?: undefined;
      readonly queryTimeoutMs?: undefined;
    }
) & {
  /** The schema the tables live in (default `public`); created on first use. */
  readonly schema?: string;
  /** Archived bytes kept per session (default 64 MiB); the oldest items go first. */
  readonly maxArchiveBytesPerSession?: number;
  /**
   * How long the server lets one of this store's transactions sit idle, in ms (default 5000).
   * A replica paused or cut off inside a write then cannot block another replica's takeover
   * of its lease for longer than this.
   */
  readonly idleTransactionTimeoutMs?: number;
  /** Events kept per session (default 10000); the oldest go first, seen as a `gap`. */
  readonly eventLogMaxPerSession?: number;
};

/** The keys of the options; their values are read where they are used. Others are refused. */
const OPTION_KEYS = shape({
  connectionString: checkedElsewhere,
  pool: checkedElsewhere,
  schema: checkedElsewhere,
  maxArchiveBytesPerSession: checkedElsewhere,
  idleTransactionTimeoutMs: checkedElsewhere,
  connectTimeoutMs: checkedElsewhere,
  queryTimeoutMs: checkedElsewhere,
  eventLogMaxPerSession: checkedElsewhere,
} satisfies Record<keyof PostgresSessionStoreOptions, Check>);

/**
 * Sessions in PostgreSQL, on `pg`, for many replicas: a lease row (with a fencing token) makes
 * one replica own a running session, and every write names its lease. The schema is created
 * and migrated on first use under an advisory lock. Large tool results live in the same
 * database.
 *
 * @example
 * ```ts
 * import { PostgresSessionStore } from 'muster-agent/postgres';
 * const store = new PostgresSessionStore({ connectionString: process.env.DATABASE_URL! });
 * const agent = createAgent({ model, sessionStore: store });
 * // ...
 * await agent.close();
 * await store.close();
 * ```
 */
export class PostgresSessionStore implements SessionStore, DispatchableStore, SessionFleetStore {
  readonly #db: PostgresConnection;
  readonly #s: string;
  readonly #transact: Transact;
  readonly #log: PostgresEventLog;
  readonly #step: PostgresStepCommit;
  readonly #leases: PostgresLeases;
  #decisionHook: DecisionHook | undefined;
  /** The archive of large tool results, in the same database. */
  readonly archive: SessionArchive;
  /** The waits of parked runs (SPEC 15.1), in the same database. */
  readonly waits: SessionWaits;

  constructor(options: PostgresSessionStoreOptions) {
    assertValid(options, OPTION_KEYS, 'PostgresSessionStore options');
    if (options.pool && (options.connectTimeoutMs ?? options.queryTimeoutMs) !== undefined)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'connectTimeoutMs and queryTimeoutMs shape the pool the store makes from a connection string: with your own pool, set its connectionTimeoutMillis, query_timeout and statement_timeout instead.',
      );
    const maxEvents = eventLogMax(options.eventLogMaxPerSession);
    const schema = options.schema ?? 'public';
    this.#s = quoteSchema(schema);
    this.#db = new PostgresConnection(
      options.pool ?? { connectionString: options.connectionString! },
      schema,
      {
        idleMs: options.idleTransactionTimeoutMs ?? 5000,
        connectMs: options.connectTimeoutMs ?? DEFAULT_POSTGRES_BOUNDS.connectMs,
        queryMs: options.queryTimeoutMs ?? DEFAULT_POSTGRES_BOUNDS.queryMs,
      },
    );
    this.#transact = (body) => this.#db.transact(body);
    const leases = new PostgresLeases(this.#s, this.#transact);
    this.#leases = leases;
    this.archive = new PostgresArchive(this.#s, this.#transact, options.maxArchiveBytesPerSession);
    // one NOTIFY channel per schema: replicas of one schema hear each other's commits
    const channel = eventChannel(schema);
    const log = new PostgresEventLog(this.#s, channel, maxEvents, this.#transact, this.#db);
    this.#log = log;
    this.#step = new PostgresStepCommit(this.#s, schema, channel, maxEvents);
    this.waits = new PostgresWaits(
      this.#s,
      this.#transact,
      (sessionId, writeOptions, body) => leases.write(sessionId, writeOptions, body),
      (c, sessionId, body) => log.appendNext(c, sessionId, body),
      () => this.#decisionHook,
    );
  }

  /** Stores a new session; fails with `SESSION_ALREADY_RUNNING` when its id is taken. */
  async create(state: SessionState, options?: SessionWriteOptions): Promise<void> {
    await this.#leases.write(state.id, options, async (c, lease) => {
      const inserted = await c.query(
        `INSERT INTO ${this.#s}.muster_sessions (id, status, iteration, created_at, updated_at,
           final_content, usage, error, archive_refs, started_calls, message_count, final_output,
           principal, budget)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
         ON CONFLICT (id) DO NOTHING`,
        sessionRowValues(state),
      );
      if (inserted.rowCount !== 1) throw existsError(state.id);
      await this.#append(c, state.id, state.messages, 0, lease);
    });
  }

  /** The session's state, or `undefined` for an unknown id. */
  async get(sessionId: string): Promise<SessionState | undefined> {
    return this.#transact(async (c) => {
      const row = await c.query<SessionRow>(
        `SELECT * FROM ${this.#s}.muster_sessions WHERE id = $1`,
        [sessionId],
      );
      if (row.rows.length === 0) return undefined;
      const messages = await c.query<{ body: unknown }>(
        `SELECT body FROM ${this.#s}.muster_messages WHERE session_id = $1 ORDER BY seq`,
        [sessionId],
      );
      return rowToState(
        row.rows[0]!,
        messages.rows.map((r) => r.body),
      );
    });
  }

  /** A step commit: one statement, one round trip (see `PostgresStepCommit`). */
  async update(
    sessionId: string,
    patch: SessionPatch,
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult> {
    const [row] = await this.#db.query<StepCommitRow>(
      this.#step.statement(sessionId, patch, options),
    );
    return this.#step.outcome(sessionId, options, row!, patch.appendEvents?.length ?? 0);
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
    await this.#leases.write(sessionId, options, async (c) => {
      const found = await c.query(`SELECT 1 FROM ${this.#s}.muster_sessions WHERE id = $1`, [
        sessionId,
      ]);
      if (found.rows.length === 0) throw notFoundError(sessionId);
      firstEventSeq = await this.#log.append(c, sessionId, events);
    });
    return firstEventSeq === undefined ? {} : { firstEventSeq };
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
    await this.#log.steer(sessionId, text);
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
    await this.#leases.write(sessionId, options, async (c, lease) => {
      texts = await this.#log.take(c, sessionId, lease);
      if (texts.length > 0 && take?.event)
        first = await this.#log.append(
          c,
          sessionId,
          texts.map((text) => logEntry(take.event!(text))),
        );
    });
    if (first !== undefined) take?.logged?.(first);
    return texts;
  }

  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a live lease holds it. */
  async delete(sessionId: string): Promise<void> {
    await this.#transact(async (c) => {
      const lease = await this.#leases.current(c, sessionId);
      if (lease?.live) throw heldError(sessionId);
      for (const table of [
        'muster_messages',
        'muster_archive',
        'muster_waits',
        'muster_events',
        'muster_steering',
      ])
        await c.query(`DELETE FROM ${this.#s}.${table} WHERE session_id = $1`, [sessionId]);
      await c.query(`DELETE FROM ${this.#s}.muster_sessions WHERE id = $1`, [sessionId]);
    });
  }

  /** One page of the stored sessions, ordered by id. */
  async list(query?: SessionListQuery): Promise<SessionPage> {
    const limit = pageSize(query);
    const rows = await this.#transact(async (c) =>
      c.query<SessionRow>(
        `SELECT * FROM ${this.#s}.muster_sessions WHERE id COLLATE "C" > $1 AND ($2::text IS NULL OR status = $2)
         ORDER BY id COLLATE "C" LIMIT $3`,
        [query?.cursor ?? '', query?.status ?? null, limit + 1],
      ),
    );
    const sessions = rows.rows.slice(0, limit).map(rowToSummary);
    return rows.rows.length > limit ? { sessions, nextCursor: sessions.at(-1)!.id } : { sessions };
  }

  /**
   * True while a live lease holds the session (its run goes on in some process). A watch asks
   * it of a `running` session that logs nothing: `running` with no live lease is a run that
   * died (SPEC 15.2).
   */
  async leased(sessionId: string): Promise<boolean> {
    const found = await this.#transact((c) =>
      c.query<{ live: boolean }>(
        `SELECT (owner IS NOT NULL AND expires_at > now()) AS live
         FROM ${this.#s}.muster_leases WHERE session_id = $1`,
        [sessionId],
      ),
    );
    return found.rows[0]?.live === true;
  }

  /** Of `sessionIds`, those a live lease holds (one query). */
  async leasedAmong(sessionIds: readonly string[]): Promise<ReadonlySet<string>> {
    if (sessionIds.length === 0) return new Set();
    const found = await this.#transact((c) =>
      c.query<{ session_id: string }>(
        `SELECT session_id FROM ${this.#s}.muster_leases
         WHERE session_id = ANY($1::text[]) AND owner IS NOT NULL AND expires_at > now()`,
        [[...sessionIds]],
      ),
    );
    return new Set(found.rows.map((r) => r.session_id));
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

  /**
   * Registers the hook a decision's transaction runs (a worker's, SPEC 15.5: the decision and
   * the session's resume job commit together); returns the function that removes it. One
   * hook per store: a second is `INVALID_CONFIGURATION`.
   */
  onWaitDecided(hook: DecisionHook): () => void {
    if (this.#decisionHook !== undefined)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'This PostgresSessionStore already has a decision hook (a worker is started on it): stop that worker first, or give the second worker a store of its own.',
      );
    this.#decisionHook = hook;
    return () => {
      if (this.#decisionHook === hook) this.#decisionHook = undefined;
    };
  }

  /**
   * Ids of sessions no process will continue by itself (at most `limit`, those updated longest
   * ago first): `running` with no live lease (the run died), or `parked` with no wait pending
   * and unexpired (decided where no worker was open, or expired). `after` (an id this returned)
   * pages on: those that come after it in the same order.
   */
  async orphans(limit: number, after?: string): Promise<readonly string[]> {
    const found = await this.#transact((c) =>
      c.query<{ id: string }>(
        `SELECT id FROM (
           SELECT s.id, s.updated_at::timestamptz AS at FROM ${this.#s}.muster_sessions s
           LEFT JOIN ${this.#s}.muster_leases l ON l.session_id = s.id
           WHERE (s.status = 'running'
               AND (l.session_id IS NULL OR l.owner IS NULL OR l.expires_at <= now()))
             OR (s.status = 'parked' AND NOT EXISTS (
               SELECT 1 FROM ${this.#s}.muster_waits w WHERE w.session_id = s.id
                 AND w.status = 'pending'
                 AND (w.expires_at IS NULL OR w.expires_at::timestamptz > now())))
           UNION ALL
           -- a run that died after taking its lease, before it stored the session
           SELECT l.session_id, l.expires_at FROM ${this.#s}.muster_leases l
           WHERE l.owner IS NOT NULL AND l.expires_at <= now() AND NOT EXISTS (
             SELECT 1 FROM ${this.#s}.muster_sessions s WHERE s.id = l.session_id)
         ) o
         WHERE $2::text IS NULL OR (o.at, o.id) > (COALESCE(
             (SELECT a.updated_at::timestamptz FROM ${this.#s}.muster_sessions a WHERE a.id = $2),
             (SELECT b.expires_at FROM ${this.#s}.muster_leases b WHERE b.session_id = $2),
             '-infinity'::timestamptz), $2)
         ORDER BY o.at, o.id LIMIT $1`,
        [limit, after ?? null],
      ),
    );
    return found.rows.map((r) => r.id);
  }

  /**
   * Where the sessions stand across the processes of a fleet (SPEC 15.5): running (a live
   * lease, its holder), queued (a job of `query.jobs`'s pg-boss queue waits for it; its
   * `job` table is read, never written) and parked (its pending waits), in one read-only
   * transaction. The studio's fleet view reads it.
   *
   * @throws MusterError `INVALID_CONFIGURATION` for a bad `jobs.schema`, `jobs.queue` or
   *   `limit`.
   */
  async fleet(query?: FleetQuery): Promise<FleetView> {
    return readFleet(this.#transact, this.#s, query);
  }

  /**
   * True when `relation` (a schema-qualified table name, quoted as SQL needs) is found in the
   * store's database (`to_regclass`).
   */
  async hasRelation(relation: string): Promise<boolean> {
    const found = await this.#transact((c) =>
      c.query<{ found: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS found`, [relation]),
    );
    return found.rows[0]?.found === true;
  }

  /**
   * The session's status and principal (one statement, no transcript), and the root session
   * whose pending links stand for its waits when it is a delegated run's, or `undefined` when
   * it is not stored: what a worker reads before it runs one of the session's jobs.
   */
  async dispatchState(sessionId: string): Promise<SessionDispatchState | undefined> {
    const [row] = await this.#db.query<{
      status: SessionStatus;
      principal: string | null;
      root: string | null;
    }>({
      text: `SELECT status, principal, (SELECT r.session_id FROM (${linkRootSql(this.#s)}) r) AS root
        FROM ${this.#s}.muster_sessions WHERE id = $1`,
      values: [sessionId, null],
    });
    if (row === undefined) return undefined;
    return {
      status: row.status,
      ...(row.principal !== null ? { principal: row.principal } : {}),
      ...(row.root !== null ? { root: row.root } : {}),
    };
  }

  /** Ends the pool when the store made it (a pool passed in stays the host's). Idempotent. */
  async close(): Promise<void> {
    await this.#log.close();
    await this.#db.close();
  }

  async #append(
    c: PoolClient,
    sessionId: string,
    messages: SessionState['messages'],
    from: number,
    lease: PostgresLeaseCheck | undefined,
  ): Promise<void> {
    if (messages.length === 0) return;
    await c.query(
      `INSERT INTO ${this.#s}.muster_messages (session_id, seq, body, lease_token, lease_owner)
       SELECT $1, $2 + i - 1, m, $4, $5 FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(m, i)`,
      [sessionId, from, JSON.stringify(messages), lease?.token ?? null, lease?.owner ?? null],
    );
  }
}
