import type { ModelMessage, Usage } from '../model/index.js';
import type { SessionArchive } from './session-archive.js';
import type { SessionBudget } from './session-budget.js';
import type { SessionWaits } from './session-waits.js';
import type { SessionLeaseRef, SessionWriteOptions } from './session-write.js';
import type { SessionEventLog, SessionLogEntry, SessionUpdateResult } from './session-event-log.js';

/**
 * Where a session stands. `running` with no live lease means its run died: resume it.
 * `parked`: its run waits for decisions (SPEC 15.1); decide its waits, then resume it.
 */
export type SessionStatus = 'idle' | 'running' | 'parked' | 'completed' | 'failed';

/** A failure recorded on a session: code and message only. */
export interface SessionErrorRecord {
  readonly code: string;
  readonly message: string;
}

/** Everything kept about one conversation. JSON-serializable; never holds binary media. */
export interface SessionState {
  readonly id: string;
  readonly status: SessionStatus;
  /** The transcript, oldest first; only ever appended to. */
  readonly messages: readonly ModelMessage[];
  /** Model turns taken by the latest run. */
  readonly iteration: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The final answer of the latest completed run. */
  readonly finalContent?: string;
  /**
   * The typed final answer of the latest completed run in its JSON form, when the run asked for
   * `output` (SPEC 15.4); absent otherwise.
   */
  readonly finalOutput?: unknown;
  /** Token usage summed over every run of the session. */
  readonly usage: Usage;
  /** References of archived tool results that belong to this session. */
  readonly archiveRefs: readonly string[];
  /**
   * Ids of tool calls whose execution started. A call here without a result in `messages`
   * was in flight when its run died: its outcome is unknown and it is never replayed, unless
   * the agent's `mcp.replay` is `'idempotent'` and its MCP tool says a second send is harmless
   * (SPEC 15.5); such a replay is recorded here as `replay:<callId>` before it is sent, so a
   * call is sent again at most once.
   */
  readonly startedCalls?: readonly string[];
  readonly error?: SessionErrorRecord;
  /**
   * The `seq` of the last event logged for the session (SPEC 15.2), dropped ones included; 0
   * or absent when none was, or when the store keeps no log.
   */
  readonly eventSeq?: number;
  /**
   * The user the session's runs act for (SPEC 15.4), stored when it was created; absent for
   * the local user. It never changes: a run, resume, decision or steering message for
   * another principal is refused with `PRINCIPAL_MISMATCH`.
   */
  readonly principal?: string;
  /**
   * The budget of the latest run that had one (SPEC 15.4): its limits and what it spent,
   * as of its last step commit; absent when no run of the session had a budget.
   */
  readonly budget?: SessionBudget;
}

/**
 * A change to a session. `appendMessages` adds to the transcript; nothing rewrites it. A field
 * that is `undefined` changes nothing, whether it is absent or present with that value (a run
 * hands every patch to the store with all fields present, in one order).
 */
export interface SessionPatch {
  readonly status?: SessionStatus | undefined;
  readonly iteration?: number | undefined;
  readonly finalContent?: string | undefined;
  /** The typed final answer: `{ value }` (JSON) records it, `null` clears the previous run's. */
  readonly finalOutput?: { readonly value: unknown } | null | undefined;
  /** Usage to add to the session's total. */
  readonly addUsage?: Usage | undefined;
  readonly appendMessages?: readonly ModelMessage[] | undefined;
  readonly appendArchiveRefs?: readonly string[] | undefined;
  /** Tool call ids whose execution starts now (see {@link SessionState.startedCalls}). */
  readonly appendStartedCalls?: readonly string[] | undefined;
  /** `null` clears a previous error. */
  readonly error?: SessionErrorRecord | null | undefined;
  /**
   * Events to log in the same commit (SPEC 15.2), numbered by the store on from the session's
   * last `seq` within the commit (`SessionUpdateResult.firstEventSeq`); a store without a log
   * ignores them.
   */
  readonly appendEvents?: readonly SessionLogEntry[] | undefined;
  /**
   * The run's budget as it stands now (SPEC 15.4): replaces the stored one; `null` clears the
   * previous run's (a new run without a budget). Store contract: a store must keep it and give
   * it back as {@link SessionState.budget}; one that ignores it resets every resumed run's
   * spending (a park, another process or a crash loop would never reach a limit).
   */
  readonly budget?: SessionBudget | null | undefined;
}

/** A short view of a session for listings. */
export interface SessionSummary {
  readonly id: string;
  readonly status: SessionStatus;
  readonly messageCount: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What {@link SessionStore.list} takes. */
export interface SessionListQuery {
  /** The `nextCursor` of the previous page; absent for the first page. */
  readonly cursor?: string;
  /** Sessions per page (default 100, at most 1000). */
  readonly limit?: number;
  /** Only sessions with this status. */
  readonly status?: SessionStatus;
}

/** One page of sessions, ordered by id. */
export interface SessionPage {
  readonly sessions: readonly SessionSummary[];
  /** Pass it as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
}

export type { SessionLeaseRef, SessionWriteOptions } from './session-write.js';

/**
 * Proof that one owner runs a session, with a fencing token. Renew it well inside its TTL;
 * once it is lost (expired, or taken over after expiring) every write naming it fails with
 * `SESSION_ALREADY_RUNNING`.
 */
export interface SessionLease extends SessionLeaseRef {
  readonly owner: string;
  /** Extends the lease by its TTL; fails with `SESSION_ALREADY_RUNNING` when it is lost. */
  renew(): Promise<void>;
  /** Gives the lease up; a lost lease is left alone. */
  release(): Promise<void>;
}

/**
 * Where sessions live. Implementations: memory (default), SQLite, PostgreSQL. `update` must
 * fail with `SESSION_NOT_FOUND` for an unknown id, and a store that offers `acquire` must
 * refuse, with `SESSION_ALREADY_RUNNING`, any `update` whose lease is not the session's
 * current live lease, and any write without a lease while a live lease is held.
 */
export interface SessionStore extends SessionEventLog {
  /** Stores a new session; fails with `SESSION_ALREADY_RUNNING` when its id is taken. */
  create(state: SessionState, options?: SessionWriteOptions): Promise<void>;
  /** The session's state, or `undefined` for an unknown id. */
  get(sessionId: string): Promise<SessionState | undefined>;
  /** A step commit: one transaction (PostgreSQL: one statement, one round trip). */
  update(
    sessionId: string,
    patch: SessionPatch,
    options?: SessionWriteOptions,
  ): Promise<void | SessionUpdateResult>;
  /** Deletes a session; fails with `SESSION_ALREADY_RUNNING` while a live lease holds it. */
  delete(sessionId: string): Promise<void>;
  /** One page of the stored sessions, ordered by id. */
  list?(query?: SessionListQuery): Promise<SessionPage>;
  /**
   * Claims a session for one running owner for `ttlMs`; resolves `undefined` while another
   * owner holds a live lease. An expired lease is taken over, with a higher fencing token.
   */
  acquire?(sessionId: string, owner: string, ttlMs: number): Promise<SessionLease | undefined>;
  /**
   * True while a live lease holds the session (its run goes on in some process). A watch asks
   * it of a `running` session that logs nothing: `running` with no live lease is a run that
   * died (SPEC 15.2).
   */
  leased?(sessionId: string): Promise<boolean>;
  /**
   * The archive of large tool results kept with the sessions (SPEC 7.5); the agent uses it
   * instead of `context.archiveStore` so paging works after a restart and on any replica.
   */
  readonly archive?: SessionArchive;
  /**
   * The waits of parked runs (SPEC 15.1). An agent whose options can park needs them: it is
   * refused at construction without them.
   */
  readonly waits?: SessionWaits;
}
