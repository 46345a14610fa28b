/** Fields every event carries. */
export interface EventBase {
  /** ISO 8601 time the event was created. */
  readonly timestamp: string;
  readonly sessionId: string;
  readonly runId: string;
}
