/** A wait of a delegated run, as the root run's link to it shows it. */
export interface ChildWait {
  readonly id: string;
  readonly kind: 'approval' | 'elicitation' | 'task' | 'auth';
  readonly toolName?: string;
  readonly server?: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly message?: string;
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  readonly url?: string;
  readonly expiresAt?: string;
  /**
   * A `task` wait's handle (its server is `server`): the root's link carries it, so whoever
   * schedules the root's resume knows when the task is due its next poll.
   */
  readonly task?: Omit<ParkedTask, 'server'>;
}

/** A delegated run (`asTool`) that parked inside a call: the root run parks on its waits. */
export interface ParkedChild {
  /** The delegated run's session, parked in the same store. */
  readonly sessionId: string;
  readonly waits: readonly ChildWait[];
}

/** The answers a resumed call sends back to the server that asked for them (`input_required`). */
export interface InputResumption {
  /** The server's opaque state, echoed as it came. */
  readonly requestState?: string;
  /** One bare answer per input request, by its key. */
  readonly inputResponses: Readonly<Record<string, unknown>>;
  /** Who decided (the first of the waits): recorded with the call's result. */
  readonly decidedBy?: DecidedBy;
}

/** A request of a server's `input_required` result that a person is asked to answer. */
export interface ParkedInput {
  /** Its key in the server's `inputRequests`. */
  readonly key: string;
  readonly mode: 'form' | 'url';
  readonly message: string;
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  readonly url?: string;
}

/** What a call that parked on a server's input requests keeps for its retry. */
export interface ParkedInputs {
  /** The server's opaque state, sent back with the answers. */
  readonly requestState?: string;
  /** The requests that wait for a person (one wait each). */
  readonly requests: readonly ParkedInput[];
  /** The answers given at once to the round's other requests (sent back with the rest). */
  readonly answered: Readonly<Record<string, unknown>>;
}

/** Who decided a call that had parked: the wait, the decision applied, why and when. */
export interface DecidedBy {
  readonly waitId: string;
  readonly decision: string;
  readonly reason?: string;
  /** ISO 8601. */
  readonly decidedAt?: string;
}

/**
 * The handle of the MCP task a call became (SPEC 15.3), as a `task` wait stores it: enough
 * for any process to poll it on (never a second `tools/call`).
 */
export interface ParkedTask {
  readonly server: string;
  readonly taskId: string;
  /** The last status seen (`working`, `input_required`). */
  readonly status: string;
  readonly statusMessage?: string;
  /** The server's `createdAt` (ISO 8601), shown only. */
  readonly createdAt: string;
  /** The last `ttlMs` the server gave (`null`: no limit), counted from `acceptedAt`. */
  readonly ttlMs: number | null;
  /** The last `pollIntervalMs` the server asked for. */
  readonly pollIntervalMs?: number;
  /** When the task answer was read (ISO 8601): the ttl's anchor. */
  readonly acceptedAt: string;
  /** When `status` was last read with `tasks/get` (ISO 8601); absent: not polled yet. */
  readonly polledAt?: string;
}

/**
 * The task a call became in an earlier run, as its `task` wait names it: the call was sent,
 * so a resumed run does not decide again whether to send it (SPEC 15.3).
 */
export interface SentTask {
  readonly server: string;
  readonly taskId: string;
  /** The decided approval wait that let the call be sent, when one did. */
  readonly approvedBy?: DecidedBy;
}

/** The task a resumed call follows instead of being sent again. */
export interface TaskResumption {
  readonly task: ParkedTask;
  /** True when its wait passed `waits.ttlMs`: one last poll, then `TOOL_OUTCOME_UNKNOWN`. */
  readonly expired: boolean;
  /**
   * Set when its wait was decided `cancel`: the task is cancelled (one `tasks/cancel`), not
   * polled, and the call ends `TOOL_OUTCOME_UNKNOWN`.
   */
  readonly cancelled?: { readonly waitId: string; readonly reason?: string };
}

/**
 * How one call of a run meets parking, as Muster's own executors see it: whether it may park
 * on a server's input requests or a task, and what it resumes with.
 */
export interface CallParking {
  /** True when the run's store keeps waits: input a person gives later may park the run. */
  readonly canPark: boolean;
  /** The decided answers to the input requests this call parked on, to send back. */
  readonly resumption?: InputResumption;
  /** The task this call became before it parked (or its process died): polled, not sent. */
  readonly task?: TaskResumption;
  /**
   * Commits the handle of the task the call just became to the session (a `task` wait), so
   * that a process that dies while polling loses nothing; only where the run can park.
   */
  readonly holdTask?: (task: ParkedTask) => Promise<void>;
  /** The parked session of the delegated run this call resumes (`asTool`). */
  readonly childSessionId?: string;
  /** The run's session store (its identity): a delegated run on another store cannot park it. */
  readonly store?: object;
}

/** Why a call parks: a server's input requests, its delegated run's waits, or its task. */
export type CallParkReason =
  | { readonly input: ParkedInputs; readonly child?: never; readonly task?: never }
  | { readonly child: ParkedChild; readonly input?: never; readonly task?: never }
  | {
      readonly task: ParkedTask;
      /** The task's input requests a person answers later (elicitation waits beside it). */
      readonly input?: ParkedInputs;
      readonly child?: never;
    };

/**
 * Thrown by an executor of Muster's own when the call waits for a person: its server asked
 * for input answered `park` (one elicitation wait per request), or its delegated run parked
 * (one link per wait of that run); or for its server: its task still runs after
 * `mcp.tasks.parkAfterMs`, or the agent closed while it was polled (one `task` wait). The
 * pipeline turns it into a parked outcome. Not a failure.
 */
export class CallParkSignal extends Error {
  constructor(readonly reason: CallParkReason) {
    super('The call parked on input a person gives later.');
    this.name = 'CallParkSignal';
  }
}
