import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { MusterError } from '../errors/index.js';
import { postgresStoreError, postgresTarget } from './postgres-failure.js';
import type { PostgresTarget, PostgresTimedOut, PostgresTimeouts } from './postgres-failure.js';
import { migratePostgres } from './postgres-schema.js';

/** The PostgreSQL store's time bounds, in ms. */
export interface PostgresBounds {
  /** How long a transaction may sit idle on the server (`idle_in_transaction_session_timeout`). */
  readonly idleMs: number;
  /** How long opening a connection may take (the pool's `connectionTimeoutMillis`). */
  readonly connectMs: number;
  /** How long one statement may take: `statement_timeout` on the server, `query_timeout` here. */
  readonly queryMs: number;
}

/** The defaults of the store's `connectTimeoutMs` and `queryTimeoutMs`. */
export const DEFAULT_POSTGRES_BOUNDS = { connectMs: 10_000, queryMs: 30_000 } as const;

/** After how long idle a connection starts TCP keepalive probes (a dead peer is then noticed). */
const KEEPALIVE_DELAY_MS = 10_000;

/**
 * The PostgreSQL store's connections: a pool (its own or the host's), the schema migrated
 * once before the first statement, and transactions the server ends when they sit idle too
 * long (a paused replica must not hold row locks for ever). A pool it makes has bounded
 * connects and statements and TCP keepalive, so a server cut off without a reset (packets
 * dropped) fails a request instead of hanging it. Every failure that is not a Muster error is
 * typed by `postgresStoreError` (`SESSION_STORE_FAILED`, the password masked).
 */
export class PostgresConnection {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #schema: string;
  readonly #begin: string;
  readonly #target: PostgresTarget;
  readonly #timeouts: PostgresTimeouts;
  #ready: Promise<void> | undefined;

  /**
   * @param bounds the time bounds; `connectMs` and `queryMs` shape a pool made here, a pool
   * passed in keeps its own options (which then name its timeouts in failures)
   */
  constructor(source: Pool | { connectionString: string }, schema: string, bounds: PostgresBounds) {
    checkMs('idleTransactionTimeoutMs', bounds.idleMs);
    checkMs('connectTimeoutMs', bounds.connectMs);
    checkMs('queryTimeoutMs', bounds.queryMs);
    this.#schema = schema;
    this.#begin = `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${bounds.idleMs}`;
    const given = 'connectionString' in source ? undefined : source;
    this.#ownsPool = given === undefined;
    this.#pool =
      given ??
      new pg.Pool({
        connectionString: (source as { connectionString: string }).connectionString,
        connectionTimeoutMillis: bounds.connectMs,
        // the server cancels a slow statement; the client gives up on a server that went silent
        statement_timeout: bounds.queryMs,
        query_timeout: bounds.queryMs,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      });
    this.#timeouts = given
      ? poolTimeouts(given)
      : { connectMs: bounds.connectMs, queryMs: bounds.queryMs };
    this.#target = postgresTarget(source);
    // a pool we own must not crash the host when an idle connection drops (server restart)
    if (this.#ownsPool) this.#pool.on('error', () => undefined);
  }

  /**
   * Runs `body` on one connection inside a transaction; rolls back when it throws.
   *
   * @throws MusterError `SESSION_STORE_FAILED` for a failure of the server or the connection
   * (`details.reason` such as `server-unreachable`, `auth-failed`, `database-missing`); a
   * Muster error of `body` as it is.
   */
  async transact<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const spent = { connecting: true, since: performance.now() };
    try {
      return await this.#transact(body, spent);
    } catch (err) {
      // the driver's timeouts carry no code: a code-less failure that came once a bound had
      // passed is that bound
      const ms = spent.connecting ? this.#timeouts.connectMs : this.#timeouts.queryMs;
      const timedOut: PostgresTimedOut | undefined =
        ms !== undefined && performance.now() - spent.since >= ms
          ? { option: spent.connecting ? 'connectTimeoutMs' : 'queryTimeoutMs', ms }
          : undefined;
      throw postgresStoreError(err, this.#target, timedOut);
    }
  }

  /**
   * Sends one statement outside any explicit transaction (the server runs it as its own): one
   * round trip on a pooled connection. Failures are typed as {@link transact}'s.
   */
  async query<R extends object>(config: {
    readonly name?: string;
    readonly text: string;
    readonly values: unknown[];
  }): Promise<R[]> {
    const spent = { connecting: true, since: performance.now() };
    try {
      await this.#migrated();
      spent.since = performance.now();
      spent.connecting = false;
      const result = await this.#pool.query<R>({ ...config });
      return result.rows;
    } catch (err) {
      const ms = this.#timeouts.queryMs;
      const timedOut: PostgresTimedOut | undefined =
        ms !== undefined && performance.now() - spent.since >= ms
          ? { option: 'queryTimeoutMs', ms }
          : undefined;
      throw postgresStoreError(err, this.#target, timedOut);
    }
  }

  /**
   * A connection of its own, out of the pool, for LISTEN (the schema migrated first); give it
   * back with `release()`.
   */
  async dedicated(): Promise<PoolClient> {
    try {
      await this.#migrated();
      return await this.#pool.connect();
    } catch (err) {
      throw postgresStoreError(err, this.#target, undefined);
    }
  }

  async #transact<T>(
    body: (client: PoolClient) => Promise<T>,
    spent: { connecting: boolean; since: number },
  ): Promise<T> {
    await this.#migrated();
    spent.since = performance.now();
    const client = await this.#pool.connect();
    spent.connecting = false;
    spent.since = performance.now();
    let broken: Error | undefined;
    // a connection the server drops while checked out reports here, not as an uncaught error;
    // the query in flight fails and the connection is discarded on release
    const onError = (err: Error) => (broken = err);
    client.on('error', onError);
    try {
      await client.query(this.#begin);
      const out = await body(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: unknown) => {
        broken = e instanceof Error ? e : new Error(String(e));
      });
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** Ends the pool when it is ours (a pool passed in stays the host's). Idempotent. */
  async close(): Promise<void> {
    if (this.#ownsPool && !this.#pool.ended) await this.#pool.end();
  }

  #migrated(): Promise<void> {
    this.#ready ??= (async () => {
      const client = await this.#pool.connect();
      try {
        await migratePostgres(client, this.#schema);
      } finally {
        client.release();
      }
    })().catch((err: unknown) => {
      this.#ready = undefined;
      throw err;
    });
    return this.#ready;
  }
}

function checkMs(option: string, ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 1)
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `${option} must be a positive whole number of ms, not ${String(ms)}.`,
    );
}

/** The timeouts a host's pool was made with, if any. */
function poolTimeouts(pool: Pool): PostgresTimeouts {
  const options = (
    pool as { options?: { connectionTimeoutMillis?: unknown; query_timeout?: unknown } }
  ).options;
  const positive = (v: unknown) => (typeof v === 'number' && v > 0 ? v : undefined);
  return {
    connectMs: positive(options?.connectionTimeoutMillis),
    queryMs: positive(options?.query_timeout),
  };
}
