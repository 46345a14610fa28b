/** Fields every event carries. */
export interface EventBase {
  /** ISO 8601 time the event was created. */
  readonly timestamp: string;
  readonly sessionId: string;
  readonly runId: string;
  /**
   * The event's number in its session's log (SPEC 15.2): it grows by one per logged event of
   * the session, across runs and processes. A `model.delta` (not logged by default) carries
   * the `seq` of the last logged event. Absent on events of a run that ended before it opened
   * its session, and on events outside runs. With a store that keeps no log it is a counter
   * of this process, not durable.
   */
  readonly seq?: number;
  /** On a `model.delta` that is not logged: its place after the event numbered `seq`, from 0. */
  readonly deltaIndex?: number;
}
