import type { ModelMessage, Usage } from '../model/index.js';

/** Where a session stands. */
export type SessionStatus = 'idle' | 'running' | 'completed' | 'failed';

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
  /** Token usage summed over every run of the session. */
  readonly usage: Usage;
  /** References of archived tool results that belong to this session. */
  readonly archiveRefs: readonly string[];
  readonly error?: SessionErrorRecord;
}

/** A change to a session. `appendMessages` adds to the transcript; nothing rewrites it. */
export interface SessionPatch {
  readonly status?: SessionStatus;
  readonly iteration?: number;
  readonly finalContent?: string;
  /** Usage to add to the session's total. */
  readonly addUsage?: Usage;
  readonly appendMessages?: readonly ModelMessage[];
  readonly appendArchiveRefs?: readonly string[];
  /** `null` clears a previous error. */
  readonly error?: SessionErrorRecord | null;
}

/** A short view of a session for listings. */
export interface SessionSummary {
  readonly id: string;
  readonly status: SessionStatus;
  readonly messageCount: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Proof that one owner runs a session; release it when the run ends. */
export interface SessionLease {
  release(): Promise<void>;
}

/**
 * Where sessions live. Implementations: memory (default), SQLite, PostgreSQL. `update` must
 * fail with `SESSION_NOT_FOUND` for an unknown id.
 */
export interface SessionStore {
  create(state: SessionState): Promise<void>;
  get(sessionId: string): Promise<SessionState | undefined>;
  update(sessionId: string, patch: SessionPatch): Promise<void>;
  delete(sessionId: string): Promise<void>;
  list?(): Promise<readonly SessionSummary[]>;
  /**
   * Claims a session for one running owner; resolves `undefined` when another owner holds it.
   * Stores shared by several processes implement it so only one replica runs a session.
   */
  acquire?(sessionId: string, owner: string, ttlMs: number): Promise<SessionLease | undefined>;
}
