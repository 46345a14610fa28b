/** Per-call options of `ModelClientV1.generate`. */
export interface ModelCallOptions {
  /** Aborts the request and the stream. */
  readonly signal: AbortSignal;
}
