import type { PoolClient, QueryResult } from 'pg';
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
import type { Transact } from './postgres-archive.js';
import { waitCursor, waitListWhere, waitRowValues } from './stored-rows.js';
import type { DecisionHook } from './session-dispatch.js';

/**
 * Runs `body` in one transaction of the store after the write's lease check
 * (`PostgresSessionStore`'s own write guard, so a wait is fenced like any other write).
 */
export type PostgresLeasedWrite = (
  sessionId: string,
  options: SessionWriteOptions | undefined,
  body: (client: PoolClient) => Promise<void>,
) => Promise<void>;

/** Logs a decision's event as the session's next one, in the decision's transaction. */
export type PostgresDecisionLog = (
  client: PoolClient,
  sessionId: string,
  body: { readonly type: string },
) => Promise<void>;

/**
 * The waits of a `PostgresSessionStore`, in the same database. A decision takes a transaction
 * lock on its session (an advisory lock) and locks the wait's row (`SELECT ... FOR UPDATE`)
 * before it reads it: a concurrent decision, from any replica, waits for the first to commit
 * and then reads the decided row, so exactly one wins; and decisions on two waits of one
 * session see each other, so the one that leaves none pending queues the resume.
 */
export class PostgresWaits implements SessionWaits {
  readonly #s: string;
  readonly #transact: Transact;
  readonly #write: PostgresLeasedWrite;
  readonly #log: PostgresDecisionLog | undefined;
  readonly #hook: (() => DecisionHook | undefined) | undefined;

  /**
   * `log` logs a decision's event in the decision's transaction (the store's event log);
   * `hook` returns the hook a decision's transaction runs, if one is registered (a worker's).
   */
  constructor(
    quotedSchema: string,
    transact: Transact,
    write: PostgresLeasedWrite,
    log?: PostgresDecisionLog,
    hook?: () => DecisionHook | undefined,
  ) {
    this.#log = log;
    this.#hook = hook;
    this.#s = quotedSchema;
    this.#transact = transact;
    this.#write = write;
  }

  /**
   * Stores a wait, or replaces the stored one of the same id while that one is pending; a
   * decided wait stays as it was (a put never undoes a decision).
   */
  async put(wait: Wait, options?: SessionWriteOptions): Promise<void> {
    const values = waitRowValues(wait);
    await this.#write(wait.sessionId, options, async (c) => {
      await c.query(
        `INSERT INTO ${this.#s}.muster_waits (session_id, id, kind, status, created_at,
           expires_at, body) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (session_id, id) DO UPDATE SET kind = excluded.kind,
           status = excluded.status, created_at = excluded.created_at,
           expires_at = excluded.expires_at, body = excluded.body
         WHERE ${this.#s}.muster_waits.status = 'pending'`,
        values,
      );
    });
  }

  /** The wait `waitId` of the session, or `undefined` when there is none. */
  async get(sessionId: string, waitId: string): Promise<Wait | undefined> {
    return this.#transact((c) => this.#read(c, sessionId, waitId, ''));
  }

  /** One page of the waits that match `query`. */
  async list(query: WaitQuery = {}): Promise<WaitPage> {
    const limit = pageSize({ ...(query.limit !== undefined ? { limit: query.limit } : {}) });
    const { where, values } = waitListWhere(query, (n) => `$${n}`);
    const found = await this.#transact((c) =>
      c.query<{ body: string }>(
        `SELECT body FROM ${this.#s}.muster_waits ${where} ORDER BY session_id, id
         LIMIT $${values.length + 1}`,
        [...values, limit + 1],
      ),
    );
    const waits = found.rows.slice(0, limit).map((r) => JSON.parse(r.body) as Wait);
    return found.rows.length > limit ? { waits, nextCursor: waitCursor(waits.at(-1)!) } : { waits };
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
    return this.#transact(async (c) => {
      // decisions on one session take turns (before any row lock, so always in this order):
      // each then counts the pending waits after the others committed, so the last one sees 0
      await c.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        `${this.#s}.muster_waits:${sessionId}`,
      ]);
      const wait = await this.#read(c, sessionId, waitId, 'FOR UPDATE');
      const checked = checkDecision(sessionId, waitId, wait, decision, { ...options, now });
      const decided: Wait = {
        ...wait!,
        status: 'decided',
        decision: checked,
        decidedAt: new Date(now).toISOString(),
      };
      await c.query(
        `UPDATE ${this.#s}.muster_waits SET status = 'decided', body = $3
         WHERE session_id = $1 AND id = $2`,
        [sessionId, waitId, JSON.stringify(decided)],
      );
      const hook = this.#hook?.();
      if (hook) {
        // a delegated run's wait: the root session that links to it is the one a resume
        // continues (its resume continues the delegated run through the link)
        const root = await linkRoot(c, this.#s, sessionId, waitId);
        if (root !== undefined)
          // the root's decisions take turns too (always after the decided wait's session's
          // lock, never before it): the last one to leave the root none pending sees 0
          await c.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
            `${this.#s}.muster_waits:${root.sessionId}`,
          ]);
        const resumeSessionId = root?.sessionId ?? sessionId;
        await hook({
          sessionId,
          wait: decided,
          resumeSessionId,
          pending: await this.#pending(c, resumeSessionId, root?.waitId ?? waitId, now),
          query: (text, values) => c.query(text, values === undefined ? undefined : [...values]),
        });
      }
      if (options?.event && this.#log) await this.#log(c, sessionId, options.event(decided));
      return decided;
    });
  }

  /** Removes waits once a resumed run has used them (or replaced them). */
  async remove(
    sessionId: string,
    waitIds: readonly string[],
    options?: SessionWriteOptions,
  ): Promise<void> {
    await this.#write(sessionId, options, async (c) => {
      await c.query(
        `DELETE FROM ${this.#s}.muster_waits WHERE session_id = $1 AND id = ANY($2::text[])`,
        [sessionId, [...waitIds]],
      );
    });
  }

  /**
   * The waits of the session still pending and not expired, `except` left out: a wait past its
   * expiry counts as decided (the resume applies `waits.onExpiry`), a task wait needs no
   * decision (the resume polls its task), and a link stands as the wait it links to does
   * (followed through nested delegations; a link whose wait is gone counts as decided).
   */
  async #pending(c: PoolClient, sessionId: string, except: string, now: number): Promise<number> {
    const at = new Date(now).toISOString();
    const open = `status = 'pending' AND kind <> 'task'
      AND (expires_at IS NULL OR expires_at::timestamptz > $3::timestamptz)`;
    const found = await c.query<{ body: string }>(
      `SELECT body FROM ${this.#s}.muster_waits WHERE session_id = $1 AND id <> $2 AND ${open}`,
      [sessionId, except, at],
    );
    let pending = 0;
    for (const row of found.rows) {
      let wait: Wait | undefined = JSON.parse(row.body) as Wait;
      for (let links = 0; wait?.child !== undefined && links < MAX_LINKS; links++) {
        const linked: QueryResult<{ body: string }> = await c.query<{ body: string }>(
          `SELECT body FROM ${this.#s}.muster_waits WHERE session_id = $1 AND id = $2 AND ${open}`,
          [wait.child.sessionId, wait.child.waitId, at],
        );
        wait = linked.rows[0] ? (JSON.parse(linked.rows[0].body) as Wait) : undefined;
      }
      if (wait !== undefined) pending++;
    }
    return pending;
  }

  async #read(
    c: PoolClient,
    sessionId: string,
    waitId: string,
    lock: '' | 'FOR UPDATE',
  ): Promise<Wait | undefined> {
    const found = await c.query<{ body: string }>(
      `SELECT body FROM ${this.#s}.muster_waits WHERE session_id = $1 AND id = $2 ${lock}`,
      [sessionId, waitId],
    );
    return found.rows[0] ? (JSON.parse(found.rows[0].body) as Wait) : undefined;
  }
}

/**
 * How many delegated runs deep a link (`Wait.child`) is followed here: links are data, and a
 * chain past this (a cycle) is not followed further (the agent's own bound, `MAX_WAIT_LINKS`).
 */
const MAX_LINKS = 32;

/**
 * The SQL of a delegated run's root: the topmost pending link (`Wait.child`) that stands, through
 * nested links, for the wait `$2` of session `$1` (any of its waits when `$2` is null). `{s}` is
 * the quoted schema. The `LIKE` only spares the JSON parse of waits that link to nothing.
 */
export function linkRootSql(quotedSchema: string): string {
  const links = `w.status = 'pending' AND w.body LIKE '%"child":%'`;
  const child = `(w.body::jsonb -> 'child')`;
  return `WITH RECURSIVE up(session_id, id, depth) AS (
      SELECT w.session_id, w.id, 1 FROM ${quotedSchema}.muster_waits w
      WHERE ${links} AND ${child} ->> 'sessionId' = $1
        AND ($2::text IS NULL OR ${child} ->> 'waitId' = $2)
      UNION ALL
      SELECT w.session_id, w.id, up.depth + 1 FROM up JOIN ${quotedSchema}.muster_waits w
        ON ${links} AND ${child} ->> 'sessionId' = up.session_id AND ${child} ->> 'waitId' = up.id
      WHERE up.depth < ${MAX_LINKS}
    )
    SELECT session_id, id FROM up ORDER BY depth DESC, session_id, id LIMIT 1`;
}

/** The root link of the wait `waitId` of a delegated run's session (see {@link linkRootSql}). */
async function linkRoot(
  c: PoolClient,
  quotedSchema: string,
  sessionId: string,
  waitId: string,
): Promise<{ readonly sessionId: string; readonly waitId: string } | undefined> {
  const found = await c.query<{ session_id: string; id: string }>(linkRootSql(quotedSchema), [
    sessionId,
    waitId,
  ]);
  const row = found.rows[0];
  return row ? { sessionId: row.session_id, waitId: row.id } : undefined;
}
