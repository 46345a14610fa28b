import { addUsage, ZERO_USAGE } from '../model/index.js';
import type { Usage } from '../model/index.js';

/**
 * The running usage total of one agent (`agent.usage`): the model turns and answered sampling
 * requests of its own runs, passed on to its parent's tally, so a root's total includes every
 * child's runs. A delegated run (`asTool`) is counted once, at the agent that ran it.
 */
export class UsageTally {
  #total: Usage = ZERO_USAGE;

  constructor(private readonly parent?: UsageTally) {}

  /** The total so far (a frozen snapshot). */
  get total(): Usage {
    return this.#total;
  }

  /** Adds usage here and in every ancestor's tally. */
  add(usage: Usage | undefined): void {
    if (!usage) return;
    this.#total = Object.freeze(addUsage(this.#total, usage));
    this.parent?.add(usage);
  }
}
