import { MusterError } from '../errors/index.js';
import type { CallPolicy } from './call-policy.js';
import type { PolicySubject } from './pattern.js';
import type { AuthorizationDecision, AuthorizationRequest } from './policy-types.js';
import type { AuthorizeOptions } from './tool-policy.js';

/** One layer of a {@link LayeredPolicy}: a policy, and the tools it owns (if any). */
export interface PolicyLayer {
  readonly policy: CallPolicy;
  /**
   * True for the tools this layer's agent brings itself (a child's own host tools): the
   * visibility of the layers outside it does not govern them, since they never borrowed them.
   * Their calls still pass every layer's authorization.
   */
  readonly owns?: (name: string) => boolean;
}

/**
 * The policy of a child agent: its own layer first, then its parent's, then the
 * grand-parent's. It can only narrow:
 *
 * - a tool is visible when every layer up to (and including) the one that owns it shows it,
 *   so a child never sees what an ancestor hides;
 * - a call is asked of each layer in turn, and the first that denies or redirects decides;
 *   an allow (an approval included) only hands the call to the next layer, so a child's
 *   approver never skips its parent's;
 * - it is a dry run when any layer is;
 * - each layer's observer sees the decisions of its own layer, and every observer hears of
 *   decisions made outside the layers (hook denials).
 *
 * @example
 * ```ts
 * const policy = new LayeredPolicy([{ policy: childPolicy }, { policy: rootPolicy }]);
 * const d = await policy.authorize(request, { signal });
 * ```
 */
export class LayeredPolicy implements CallPolicy {
  readonly #layers: readonly PolicyLayer[];

  /** `layers` runs innermost (the child's own) first; at least one layer. */
  constructor(layers: readonly PolicyLayer[]) {
    if (!Array.isArray(layers) || layers.length === 0)
      throw new MusterError('INVALID_CONFIGURATION', 'A LayeredPolicy needs at least one layer.');
    this.#layers = Object.freeze([...layers]);
  }

  /** The layers' versions, innermost first. */
  get version(): string {
    return this.#layers.map((l) => l.policy.version).join('/');
  }

  /** True when any layer is a dry run. */
  get dryRun(): boolean {
    return this.#layers.some((l) => l.policy.dryRun);
  }

  /** Visible when every layer up to the tool's owner shows it. */
  isVisible(subject: PolicySubject): boolean {
    for (const layer of this.#layers) {
      if (!layer.policy.isVisible(subject)) return false;
      if (subject.kind === 'tool' && layer.owns?.(subject.name) === true) return true;
    }
    return true;
  }

  /**
   * Asks every layer, innermost first; the first denial or redirect is the decision. When all
   * allow, the outermost layer's decision is returned.
   */
  async authorize(
    request: AuthorizationRequest,
    options: AuthorizeOptions,
  ): Promise<AuthorizationDecision> {
    let decision: AuthorizationDecision | undefined;
    for (const layer of this.#layers) {
      decision = await layer.policy.authorize(request, options);
      if (decision.decision !== 'allow') return decision;
    }
    return decision!;
  }

  /** Tells every layer's observer about a decision made outside the layers. */
  notify(
    request: AuthorizationRequest,
    decision: AuthorizationDecision,
    onError?: (err: unknown) => void,
  ): void {
    for (const layer of this.#layers) layer.policy.notify(request, decision, onError);
  }
}
