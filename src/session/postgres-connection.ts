import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { MusterError } from '../errors/index.js';
import { postgresStoreError, postgresTarget } from './postgres-failure.js';
import type { PostgresTarget } from './postgres-failure.js';
import { migratePostgres } from './postgres-schema.js';

/**
 * The PostgreSQL store's connections: a pool (its own or the host's), the schema migrated
 * once before the first statement, and transactions the server ends when they sit idle too
 * long (a paused replica must not hold row locks for ever). Every failure that is not a Muster
 * error is typed by `postgresStoreError` (`SESSION_STORE_FAILED`, the password masked).
 */
export class PostgresConnection {
  readonly #pool: Pool;
  readonly #ownsPool: boolean;
  readonly #schema: string;
  readonly #begin: string;
  readonly #target: PostgresTarget;
  #ready: Promise<void> | undefined;

  constructor(source: Pool | { connectionString: string }, schema: string, idleMs: number) {
    if (!Number.isSafeInteger(idleMs) || idleMs < 1)
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `idleTransactionTimeoutMs must be a positive whole number of ms, not ${String(idleMs)}.`,
      );
    this.#schema = schema;
    this.#begin = `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${idleMs}`;
    const given = 'connectionString' in source ? undefined : source;
    this.#ownsPool = given === undefined;
    this.#pool = given ?? new pg.Pool(source as { connectionString: string });
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
    try {
      return await this.#transact(body);
    } catch (err) {
      throw postgresStoreError(err, this.#target);
    }
  }

  async #transact<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.#migrated();
    const client = await this.#pool.connect();
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
