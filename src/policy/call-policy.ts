import type { DECIDE_AT_ONCE } from './decide-at-once.js';
import type { PolicySubject } from './pattern.js';
import type { AuthorizationDecision, AuthorizationRequest } from './policy-types.js';
import type { AuthorizeOptions } from './tool-policy.js';

/**
 * What the tool call pipeline uses of a policy: visibility, authorization, the observer of
 * decisions made elsewhere, and dry-run mode. {@link ToolPolicy} is one; a child agent's
 * `LayeredPolicy` (its own policy, then each ancestor's) is another.
 */
export interface CallPolicy {
  /** True when tools are evaluated but not executed. */
  readonly dryRun: boolean;
  /** The version approvals are bound to (`policy.version`, else a hash of the policy's data). */
  readonly version: string;
  /** True when the model may see (and so call) the tool. Connections are always "visible". */
  isVisible(subject: PolicySubject): boolean;
  /** Decides one request; rejects with `ABORTED` only when the signal aborts. */
  authorize(
    request: AuthorizationRequest,
    options: AuthorizeOptions,
  ): Promise<AuthorizationDecision>;
  /**
   * The decision of `request` when it needs neither a rule, an approver nor a wait (the deny
   * list, the allow list, an `allow` or `deny` default), without telling the observer; else
   * `undefined`, and `authorize` decides. Optional: the pipeline decides most calls through it
   * without an `await` (each is a turn of the microtask queue in the call's `durationMs`).
   */
  [DECIDE_AT_ONCE]?(request: AuthorizationRequest): AuthorizationDecision | undefined;
  /** Tells the observer(s) about a decision made elsewhere (for example by a hook). */
  notify(
    request: AuthorizationRequest,
    decision: AuthorizationDecision,
    onError?: (err: unknown) => void,
  ): void;
}
