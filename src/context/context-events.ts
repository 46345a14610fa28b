import type { EventBase } from '../util/index.js';
import type { ContextMetrics } from './context-measure.js';
import type { ContextStrategy } from './context-options.js';

/**
 * A model request was shaped to fit the context limits. `before` is the whole transcript (with
 * the system prompt), `after` what was sent. The stored transcript is unchanged.
 */
export interface ContextCompactedEvent extends EventBase {
  readonly type: 'context.compacted';
  readonly strategy: ContextStrategy;
  readonly before: ContextMetrics;
  readonly after: ContextMetrics;
  /** Transcript messages not sent as themselves (left out, or replaced by the summary). */
  readonly removedMessages: number;
  /**
   * Under `summarize`: true when the host's summarizer was called for this request, false
   * when the summary made earlier in the run still covered what was left out.
   */
  readonly summarized?: boolean;
}
