/** What a write names: the lease of the run that makes it (its fencing token). */
export interface SessionLeaseRef {
  /** The fencing token: it grows each time the session's lease changes hands. */
  readonly token: number;
}

/** Options of a session write. */
export interface SessionWriteOptions {
  /** The writing run's lease; a store that offers leases refuses it when it is not current. */
  readonly lease?: SessionLeaseRef;
}
