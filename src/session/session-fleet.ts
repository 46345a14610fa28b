import type { SessionStatus } from './session-store.js';
import type { WaitKind } from './session-waits.js';

/**
 * Where a session of a fleet stands (SPEC 15.5): `running` while a live lease holds it (some
 * process runs it), `queued` while a job of the fleet's queue waits to run it and it is not
 * parked on a pending wait of its own, `parked` while it waits for a decision (or for a
 * resume once decided).
 */
export type FleetState = 'queued' | 'running' | 'parked';

/** A job of the fleet's queue, as pg-boss keeps it (read only). */
export interface FleetJob {
  readonly id: string;
  /** pg-boss's state: `created`, `retry` (queued) or `active` (taken by a worker). */
  readonly state: string;
  /** What the job does: `start` (a new run) or `resume`. */
  readonly kind?: string;
  /** Why a resume was queued: `decided`, `expires`, `orphaned`, `interrupted`. */
  readonly why?: string;
  /** ISO 8601. */
  readonly createdAt: string;
  /** ISO 8601: not taken before then (a delayed job). */
  readonly startAfter: string;
}

/** One session of a fleet and where it stands. */
export interface FleetSession {
  readonly sessionId: string;
  readonly state: FleetState;
  /** Its stored status; absent for a run queued and not started yet (no session stored). */
  readonly status?: SessionStatus;
  /** ISO 8601, the session's last change. */
  readonly updatedAt?: string;
  /** Running: who holds the lease (the id of the run that took it). */
  readonly holder?: string;
  /** Running: when the lease runs out unless its holder renews it (ISO 8601). */
  readonly leaseExpiresAt?: string;
  /** Parked: the kinds of its waits still pending (one entry per wait). */
  readonly pendingWaits?: readonly WaitKind[];
  /**
   * The queue's job for it: queued, the job that will run it; running, the job a worker
   * took (absent for a run not started by a worker); parked, the resume due later (its
   * waits' expiry), if any.
   */
  readonly job?: FleetJob;
  /** A queued start job: its input, cut to 200 characters. */
  readonly input?: string;
}

/** What {@link SessionFleetStore.fleet} takes. */
export interface FleetQuery {
  /** Only sessions in this state (default: all three). */
  readonly state?: FleetState;
  /**
   * The fleet's pg-boss queue (its `job` table is read, never written): the schema pg-boss
   * uses and the queue's name, as the workers' `schema` and `queue` options. Absent, or not
   * found in the database: no session is `queued`.
   */
  readonly jobs?: { readonly schema: string; readonly queue: string };
  /** Sessions per state (default 100, 1 to 1000). */
  readonly limit?: number;
}

/** The answer of {@link SessionFleetStore.fleet}. */
export interface FleetView {
  /** Running first, then queued, then parked; by session id within each. */
  readonly sessions: readonly FleetSession[];
  /** Whether the queue's job table was found (false without `jobs`). */
  readonly queueFound: boolean;
  /** True when a state had more sessions than `limit` (the rest are left out). */
  readonly truncated: boolean;
}

/**
 * A store that can say where each of its sessions stands across processes: the PostgreSQL
 * store, whose leases and waits sit beside pg-boss's job table in one database. Read in one
 * read-only transaction.
 */
export interface SessionFleetStore {
  /**
   * The sessions that are queued, running or parked now.
   *
   * @throws MusterError `INVALID_CONFIGURATION` for a `jobs.schema` that is no plain
   *   lower-case SQL name, a `jobs.queue` that is no queue name, or a `limit` out of range.
   */
  fleet(query?: FleetQuery): Promise<FleetView>;
}

/** True when `store` is a {@link SessionFleetStore}. */
export function isFleetStore(store: object): store is SessionFleetStore {
  return typeof (store as Partial<SessionFleetStore>).fleet === 'function';
}
