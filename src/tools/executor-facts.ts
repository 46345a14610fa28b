import type { ToolExecutor } from './tool-types.js';

/**
 * The key under which Muster's own executors state facts about themselves. It is not
 * exported from the package, so a host executor cannot claim them: it gets the safe
 * behaviour (its arguments copied, its call raced against the run's signal).
 */
export const OWN_EXECUTOR_FACTS: unique symbol = Symbol('muster.executor.facts');

/** What one of Muster's own executors knows about its `execute`. */
export interface OwnExecutorFacts {
  /**
   * `execute` never changes the `input` it is given: it may then get the run's parsed
   * arguments themselves (deep-frozen, shared with the transcript) instead of a copy.
   */
  readonly readsInputOnly?: boolean;
  /**
   * The promise `execute` returns settles as soon as the call's signal aborts (a client that
   * rejects its request on abort): the pipeline then does not race it against the signal.
   */
  readonly settlesOnAbort?: boolean;
  /**
   * `listTools` hands back the same frozen array for as long as its tools, and what
   * `getToolInfo` says of each, stay the same, and a new array once either changes: a run's
   * catalog may then reuse the entries it built from that array on an earlier run.
   */
  readonly stableListing?: boolean;
}

/** An executor of Muster's own, stating its facts. */
export interface OwnExecutor {
  readonly [OWN_EXECUTOR_FACTS]: OwnExecutorFacts;
}

const NO_FACTS: OwnExecutorFacts = Object.freeze({});

/** The facts an executor states: none for a host's. */
export function executorFacts(executor: ToolExecutor): OwnExecutorFacts {
  return (executor as Partial<OwnExecutor>)[OWN_EXECUTOR_FACTS] ?? NO_FACTS;
}
