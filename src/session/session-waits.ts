import type { SessionWriteOptions } from './session-write.js';

/** What a parked run waits for (SPEC 15.1). */
export type WaitKind = 'approval' | 'elicitation' | 'task' | 'auth';

/** A person's (or a service's) answer to an approval wait. */
export interface ApprovalWaitDecision {
  readonly decision: 'allow' | 'deny' | 'redirect';
  /** Who or why, recorded with the decision and shown to the policy observer. */
  readonly reason?: string;
  /** The new instruction of a `redirect`. */
  readonly message?: string;
}

/** An answer to an elicitation wait (a server's form). */
export interface ElicitationWaitDecision {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

/**
 * The one decision a `task` wait takes (SPEC 15.3): cancel the task. The run's next resume
 * sends `tasks/cancel` (at most once per resume: a failed send is not retried), without
 * polling again, and the call ends `TOOL_OUTCOME_UNKNOWN` (cancellation is cooperative: the
 * work may have happened).
 */
export interface TaskWaitDecision {
  readonly decision: 'cancel';
  /** Who or why, recorded with the decision. */
  readonly reason?: string;
}

/** A decision of any wait kind, as stored. */
export type WaitDecision = ApprovalWaitDecision | ElicitationWaitDecision | TaskWaitDecision;

/**
 * The handle of the MCP task a `task` wait holds (SPEC 15.3): what any process needs to poll
 * the task on. No secret: the server's name, the task's id and the times it gave.
 */
export interface TaskWaitHandle {
  readonly taskId: string;
  /** The last status seen. */
  readonly status: string;
  readonly statusMessage?: string;
  /** The server's `createdAt` (ISO 8601). */
  readonly createdAt: string;
  /** The last `ttlMs` the server gave (`null`: no limit), counted from `acceptedAt`. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** When the task answer was read (ISO 8601). */
  readonly acceptedAt: string;
  /** When `status` was last read from the server (`tasks/get`, ISO 8601); absent: never polled. */
  readonly polledAt?: string;
}

/**
 * One thing a parked run waits for. JSON-serializable; never holds a secret or an
 * authorization URL (an `auth` wait names server, issuer and principal only).
 */
export interface Wait {
  readonly id: string;
  readonly sessionId: string;
  /** The run that parked on it. */
  readonly runId: string;
  readonly kind: WaitKind;
  /** The tool call it holds (approvals, elicitations and tasks inside a call). */
  readonly callId?: string;
  /** The model-facing tool name. */
  readonly toolName?: string;
  readonly server?: string;
  /** Approvals: the exact arguments that will run once allowed. */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** What the person is asked (elicitations: the server's message). */
  readonly message?: string;
  /** Elicitation forms: the schema the answer must match. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** URL elicitations only. */
  readonly url?: string;
  /** Auth waits: the issuer and the principal that must sign in. */
  readonly issuer?: string;
  readonly principal?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601; absent means it never expires. */
  readonly expiresAt?: string;
  /** sha-256 (hex) of the call's arguments, the tool definition and the policy version. */
  readonly fingerprint: string;
  /** Protocol state a server asked to be sent back (`input_required`), kept as it came. */
  readonly requestState?: string;
  /** Elicitations of an `input_required` result: the key of the request this wait answers. */
  readonly inputKey?: string;
  /**
   * Elicitations of an `input_required` result: the answers given at once to the same
   * round's other requests, sent back with this one's.
   */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /**
   * The approval that let this wait's call run before it parked here (a server's question, a
   * delegated run): the resumed call is not asked again while its fingerprint matches.
   */
  readonly approvedBy?: {
    readonly waitId: string;
    readonly decision: string;
    readonly reason?: string;
    readonly decidedAt?: string;
  };
  /**
   * A link: the wait stands in the root session for a wait of a delegated run (`asTool`)
   * that parked inside this wait's call. Deciding it decides that wait; its status is that
   * wait's.
   */
  readonly child?: { readonly sessionId: string; readonly waitId: string };
  /**
   * Task waits: the handle of the task the call became. A task wait needs no decision: a
   * resume polls the task again (its server is `server`); decided `{ decision: 'cancel' }`,
   * the resume cancels the task instead.
   */
  readonly task?: TaskWaitHandle;
  /** `pending` until decided; `decided` once a decision is stored. */
  readonly status: 'pending' | 'decided';
  readonly decision?: WaitDecision;
  /** ISO 8601, when decided. */
  readonly decidedAt?: string;
}

/** What {@link SessionWaits.list} takes. */
export interface WaitQuery {
  readonly sessionId?: string;
  readonly kind?: WaitKind;
  /** Only waits with this status (default: both). */
  readonly status?: Wait['status'];
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
  /** Waits per page (default 100, at most 1000). */
  readonly limit?: number;
}

/** One page of waits, ordered by session id, then wait id. */
export interface WaitPage {
  readonly waits: readonly Wait[];
  readonly nextCursor?: string;
}

/** What {@link SessionWaits.decide} checks besides the wait being pending. */
export interface DecideOptions {
  /** The fingerprint the deciding host showed; a different stored one is `WAIT_STALE`. */
  readonly fingerprint?: string;
  /** Now, in ms since the epoch (a wait past `expiresAt` cannot be decided). */
  readonly now?: number;
  /**
   * The event a store with a log (SPEC 15.2) logs in the decision's transaction, numbered
   * after the session's last (`wait.decided`, seen by watchers in any process).
   */
  readonly event?: (decided: Wait) => { readonly type: string };
}

/**
 * The waits of parked runs, kept with the sessions (SPEC 15.1). Every process with the same
 * store sees them: any of them may decide a wait, and any replica may resume the run.
 * `put` and `remove` are writes of the run that holds the session's lease and must be refused
 * (`SESSION_ALREADY_RUNNING`) like any other write whose lease is not current; `decide` is
 * taken from any process without a lease, and exactly one of concurrent decisions wins.
 */
export interface SessionWaits {
  /**
   * Stores a wait, or replaces the stored one of the same id while that one is pending (a
   * task wait a run parks on again holds its task's latest state). A decided wait stays as it
   * was: a put never undoes a decision, so a run that read a wait pending before another
   * process decided it cannot store it pending again (the next resume applies the decision).
   */
  put(wait: Wait, options?: SessionWriteOptions): Promise<void>;
  /** The wait `waitId` of the session, or `undefined` when there is none. */
  get(sessionId: string, waitId: string): Promise<Wait | undefined>;
  /** One page of the waits that match `query`. */
  list(query?: WaitQuery): Promise<WaitPage>;
  /**
   * Records a decision on a pending wait and returns the decided wait. Fails with
   * `WAIT_NOT_FOUND` for an unknown wait, one already decided (the message says so) or an
   * expired one (the message says so); with `WAIT_STALE` when `options.fingerprint` differs
   * from the stored one. A failed call changes nothing.
   */
  decide(
    sessionId: string,
    waitId: string,
    decision: WaitDecision,
    options?: DecideOptions,
  ): Promise<Wait>;
  /** Removes waits once a resumed run has used them (or replaced them). */
  remove(
    sessionId: string,
    waitIds: readonly string[],
    options?: SessionWriteOptions,
  ): Promise<void>;
}
