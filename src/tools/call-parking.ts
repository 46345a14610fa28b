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
 * How one call of a run meets parking, as Muster's own executors see it: whether it may park
 * on a server's input requests, and the answers it resumes with.
 */
export interface CallParking {
  /** True when the run's store keeps waits: input a person gives later may park the run. */
  readonly canPark: boolean;
  /** The decided answers to the input requests this call parked on, to send back. */
  readonly resumption?: InputResumption;
  /** The parked session of the delegated run this call resumes (`asTool`). */
  readonly childSessionId?: string;
  /** The run's session store (its identity): a delegated run on another store cannot park it. */
  readonly store?: object;
}

/** Why a call parks: a server's input requests, or its delegated run's waits. */
export type CallParkReason =
  | { readonly input: ParkedInputs; readonly child?: never }
  | { readonly child: ParkedChild; readonly input?: never };

/**
 * Thrown by an executor of Muster's own when the call waits for a person: its server asked
 * for input answered `park` (one elicitation wait per request), or its delegated run parked
 * (one link per wait of that run). The pipeline turns it into a parked outcome. Not a failure.
 */
export class CallParkSignal extends Error {
  constructor(readonly reason: CallParkReason) {
    super('The call parked on input a person gives later.');
    this.name = 'CallParkSignal';
  }
}
