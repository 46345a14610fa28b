import type { SessionStatus } from './session-store.js';
import type { Wait } from './session-waits.js';

/**
 * SQL run inside a decision's transaction, on the store's own connection (the shape pg-boss's
 * `db.executeSql` takes): whatever a hook writes commits or rolls back with the decision.
 */
export type DecisionQuery = (
  text: string,
  values?: readonly unknown[],
) => Promise<{ readonly rows: readonly unknown[] }>;

/** What a store tells a {@link DecisionHook} about a decision, inside its transaction. */
export interface WaitDecidedInTransaction {
  readonly sessionId: string;
  /** The wait as decided. */
  readonly wait: Wait;
  /**
   * The session whose resume continues the decided wait's run: `sessionId`, or, for a wait of
   * a delegated (`asTool`) run, the root session whose pending link stands for it (nested links
   * followed to the top). The root's resume continues the delegated run through its link.
   */
  readonly resumeSessionId: string;
  /**
   * Waits of `resumeSessionId` still pending and not expired after this decision, `task` waits
   * left out (they need no decision: a resume polls their tasks), a link counted as the wait it
   * links to stands: 0 means a resume would continue the run.
   */
  readonly pending: number;
  /** Runs SQL in the decision's transaction. */
  readonly query: DecisionQuery;
}

/**
 * Called by a store inside the transaction that records a decision, before it commits; a hook
 * that throws rolls the decision back. A worker registers one to enqueue the session's resume
 * with the decision (SPEC 15.5).
 */
export type DecisionHook = (decided: WaitDecidedInTransaction) => Promise<void>;

/** What a worker reads of a session before it runs one of its jobs. */
export interface SessionDispatchState {
  readonly status: SessionStatus;
  /** The principal the session acts for; absent: the local user. */
  readonly principal?: string;
  /**
   * Set for a delegated (`asTool`) run's session whose waits a root session's pending links
   * stand for: that root (nested links followed to the top). Its jobs resume the root, whose
   * resume continues this session through its link with the delegated agent.
   */
  readonly root?: string;
}

/**
 * A store that workers can dispatch runs over (SPEC 15.5): the PostgreSQL store. Workers reach
 * it through this face only, so the store never depends on them.
 */
export interface DispatchableStore {
  /**
   * Registers the hook a decision's transaction runs (one per store); returns the function
   * that removes it. A second hook while one is registered is `INVALID_CONFIGURATION`.
   */
  onWaitDecided(hook: DecisionHook): () => void;
  /**
   * Ids of sessions no process will continue by itself: `running` with no live lease (the run
   * died), `parked` with no wait pending and unexpired, or not stored at all under a lease that
   * expired with an owner (a run that died before it stored its session), at most `limit`,
   * those idle longest first. `after` (an id it returned) asks for the next page.
   */
  orphans(limit: number, after?: string): Promise<readonly string[]>;
  /**
   * Of `sessionIds`, those a live lease holds (their runs go on in some process): a worker's
   * sweep leaves their jobs alone.
   */
  leasedAmong(sessionIds: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * True when `relation` (a schema-qualified table name, quoted as SQL needs) is found in the
   * store's database: a worker checks there that pg-boss's job table shares the store's
   * database (a decision queues its resume in the decision's own transaction).
   */
  hasRelation(relation: string): Promise<boolean>;
  /**
   * The session's status and principal, without its transcript (one statement), and its root
   * when it is a delegated run's session that a root's pending link stands for, or `undefined`
   * when it is not stored: every job a worker takes reads it first.
   */
  dispatchState(sessionId: string): Promise<SessionDispatchState | undefined>;
}

/** True when `store` is a {@link DispatchableStore}. */
export function isDispatchable(store: object): store is DispatchableStore {
  const s = store as Partial<DispatchableStore>;
  return (
    typeof s.onWaitDecided === 'function' &&
    typeof s.orphans === 'function' &&
    typeof s.leasedAmong === 'function' &&
    typeof s.hasRelation === 'function' &&
    typeof s.dispatchState === 'function'
  );
}
