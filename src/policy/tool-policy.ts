import { MusterError, abortedError } from '../errors/index.js';
import { assertValid, callIsolated, checkedElsewhere, shape } from '../util/index.js';
import { DECIDE_AT_ONCE } from './decide-at-once.js';
import { compilePatterns } from './pattern.js';
import { parkOrDeny } from './parking.js';
import { deniedByList, fromAnswer, subjectOf } from './policy-answers.js';
import { dataVersion } from './policy-version.js';
import type { PatternMatcher, PolicySubject } from './pattern.js';
import type {
  ApprovalAnswer,
  AuthorizationDecision,
  AuthorizationRequest,
  AuthorizationRule,
  Approver,
  DecisionKind,
  PolicyDecision,
  PolicyOptions,
} from './policy-types.js';

/**
 * The keys of {@link PolicyOptions}: any other is refused (a misspelled `approve` would leave
 * every call to the default). Their values are checked in the constructor.
 */
const POLICY_KEYS = shape({
  visibleTools: checkedElsewhere,
  deny: checkedElsewhere,
  rules: checkedElsewhere,
  allow: checkedElsewhere,
  default: checkedElsewhere,
  approve: checkedElsewhere,
  park: checkedElsewhere,
  version: checkedElsewhere,
  dryRun: checkedElsewhere,
  observer: checkedElsewhere,
} satisfies Record<keyof PolicyOptions, unknown>);
const DEFAULTS: ReadonlySet<string> = new Set(['ask', 'allow', 'deny']);

/** Hooks the caller of {@link ToolPolicy.authorize} may pass. */
export interface AuthorizeOptions {
  readonly signal: AbortSignal;
  /** Called just before the approver is asked. */
  readonly onApprovalRequested?: (request: AuthorizationRequest) => void;
  /** Receives observer failures. */
  readonly onObserverError?: (err: unknown) => void;
  /**
   * The decision already taken for this call on a wait it parked on (SPEC 15.1), used in place
   * of asking the approver; `undefined` asks as usual. Only reached when the call gets to the
   * `ask` stage: deny, rules and allow run first.
   */
  readonly decided?: (request: AuthorizationRequest) => ApprovalAnswer | undefined;
  /** False when parking is impossible (the store keeps no waits): a park is then a denial. */
  readonly canPark?: boolean;
}

/**
 * The ordered, fail-closed authorization pipeline: deny, rules, allow, then the default
 * (`ask` -> approver). Usable on its own, without an agent.
 *
 * @example
 * ```ts
 * const policy = new ToolPolicy({ deny: ['mcp__fs__delete*'], allow: ['mcp__fs__read*'], default: 'deny' });
 * const d = await policy.authorize(request, { signal });
 * ```
 */
export class ToolPolicy {
  readonly #visible: PatternMatcher | undefined;
  readonly #deny: PatternMatcher;
  readonly #allow: PatternMatcher;
  readonly #rules: readonly AuthorizationRule[];
  readonly #default: 'ask' | 'allow' | 'deny';
  readonly #approve: Approver | undefined;
  readonly #observer: PolicyOptions['observer'];
  readonly #park: boolean;
  /** True when tools are evaluated but not executed. */
  readonly dryRun: boolean;
  /** The version approvals are bound to: `policy.version`, else a hash of the policy's data. */
  readonly version: string;

  constructor(options: PolicyOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new MusterError('INVALID_CONFIGURATION', 'policy must be an object.');
    }
    assertValid(options, POLICY_KEYS, 'policy');
    this.#visible =
      options.visibleTools === undefined
        ? undefined
        : compilePatterns(options.visibleTools, 'policy.visibleTools');
    this.#deny = compilePatterns(options.deny, 'policy.deny');
    this.#allow = compilePatterns(options.allow, 'policy.allow');
    this.#rules = checkRules(options.rules);
    const def = options.default ?? 'ask';
    if (!DEFAULTS.has(def)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `policy.default must be 'ask', 'allow' or 'deny', got ${JSON.stringify(def)}.`,
      );
    }
    this.#default = def;
    if (options.approve !== undefined && typeof options.approve !== 'function') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'policy.approve must be a function (request, signal) => boolean | decision.',
      );
    }
    this.#approve = options.approve;
    if (options.observer !== undefined && typeof options.observer !== 'function') {
      throw new MusterError('INVALID_CONFIGURATION', 'policy.observer must be a function.');
    }
    this.#observer = options.observer;
    this.dryRun = options.dryRun === true;
    if (options.park !== undefined && typeof options.park !== 'boolean')
      throw new MusterError('INVALID_CONFIGURATION', 'policy.park must be true or false.');
    this.#park = options.park === true;
    if (
      options.version !== undefined &&
      (typeof options.version !== 'string' || options.version === '')
    )
      throw new MusterError('INVALID_CONFIGURATION', 'policy.version must be a non-empty string.');
    this.version = options.version ?? dataVersion(options, this.#rules);
  }

  /** True when an `ask` with no approver parks instead of denying. */
  get parks(): boolean {
    return this.#park;
  }

  /** True when the model may see (and so call) the tool. Connections are always "visible". */
  isVisible(subject: PolicySubject): boolean {
    return this.#visible === undefined || subject.kind !== 'tool' || this.#visible(subject);
  }

  /**
   * Decides one request. Rule and approver failures deny (fail closed); an aborted signal
   * rejects with `ABORTED`. The observer is told the final decision, without arguments.
   */
  async authorize(
    request: AuthorizationRequest,
    options: AuthorizeOptions,
  ): Promise<AuthorizationDecision> {
    const decision = await this.#decide(request, options);
    this.notify(request, decision, options.onObserverError);
    return decision;
  }

  /** Tells the observer about a decision made elsewhere (for example by a hook). */
  notify(
    request: AuthorizationRequest,
    decision: AuthorizationDecision,
    onError?: (err: unknown) => void,
  ): void {
    const observer = this.#observer;
    if (!observer) return;
    const event = {
      kind: request.kind,
      capability: request.capability,
      ...(request.toolName !== undefined ? { toolName: request.toolName } : {}),
      ...(request.source !== undefined ? { source: request.source } : {}),
      ...(request.server !== undefined ? { server: request.server } : {}),
      sessionId: request.sessionId,
      runId: request.runId,
      ...(request.principal !== undefined ? { principal: request.principal } : {}),
      ...(request.callId !== undefined ? { callId: request.callId } : {}),
      stage: decision.stage,
      decision: decision.decision,
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      ...(decision.ruleId !== undefined ? { ruleId: decision.ruleId } : {}),
      ...(decision.metadata !== undefined ? { metadata: decision.metadata } : {}),
      dryRun: this.dryRun && request.kind === 'tool',
    };
    callIsolated(() => observer(Object.freeze(event)), onError);
  }

  /**
   * The decision when the deny list settles it, or, with no rule to ask, the allow list or an
   * `allow`/`deny` default does; `undefined` when {@link authorize} must decide (a rule, the
   * approver, a wait). The observer is not told: the caller tells it ({@link notify}). For the
   * tool-call pipeline, not for hosts: call {@link authorize}.
   *
   * @internal
   */
  [DECIDE_AT_ONCE](request: AuthorizationRequest): AuthorizationDecision | undefined {
    const subject = subjectOf(request);
    if (this.#deny(subject)) return deniedByList();
    return this.#rules.length === 0 ? this.#afterRules(subject, request) : undefined;
  }

  async #decide(
    request: AuthorizationRequest,
    options: AuthorizeOptions,
  ): Promise<AuthorizationDecision> {
    const subject = subjectOf(request);
    if (this.#deny(subject)) return deniedByList();

    for (const rule of this.#rules) {
      if (options.signal.aborted) throw abortedError('Authorization', options.signal.reason);
      let answer: DecisionKind | PolicyDecision | undefined;
      try {
        answer = await rule.authorize(request);
      } catch (err) {
        return {
          decision: 'deny',
          stage: 'rule',
          ruleId: rule.id,
          reason: `rule '${rule.id}' failed: ${describe(err)}`,
          code: 'TOOL_DENIED',
        };
      }
      if (answer === undefined) continue;
      return fromAnswer(answer, 'rule', request, rule.id);
    }

    const listed = this.#afterRules(subject, request);
    if (listed) return listed;
    const decided = request.kind === 'tool' ? options.decided?.(request) : undefined;
    if (decided !== undefined) return this.#answered(decided, request, options);
    if (!this.#approve && this.#park) return parkOrDeny(request, options.canPark, 'policy.park');
    if (!this.#approve) {
      return {
        decision: 'deny',
        stage: 'default',
        reason: "approval is required (policy.default 'ask') but no policy.approve was configured",
        code: 'TOOL_APPROVAL_REQUIRED',
      };
    }
    options.onApprovalRequested?.(request);
    let answer: ApprovalAnswer;
    try {
      answer = await this.#approve(request, options.signal);
    } catch (err) {
      if (options.signal.aborted) throw abortedError('Approval', options.signal.reason);
      return {
        decision: 'deny',
        stage: 'approval',
        reason: `the approver failed: ${describe(err)}`,
        code: 'TOOL_DENIED',
      };
    }
    if (options.signal.aborted) throw abortedError('Approval', options.signal.reason);
    return this.#answered(answer, request, options);
  }

  /** What decides after the rules without asking anyone: allow list, built-ins, default. */
  #afterRules(
    subject: PolicySubject,
    request: AuthorizationRequest,
  ): AuthorizationDecision | undefined {
    if (this.#allow(subject))
      return { decision: 'allow', stage: 'allow', reason: 'matched policy.allow' };
    if (request.kind === 'tool' && request.source === 'builtin') {
      return {
        decision: 'allow',
        stage: 'default',
        reason: 'built-in tools are allowed unless denied',
      };
    }
    if (this.#default === 'allow')
      return { decision: 'allow', stage: 'default', reason: "policy.default is 'allow'" };
    if (this.#default === 'deny')
      return {
        decision: 'deny',
        stage: 'default',
        reason: "policy.default is 'deny'",
        code: 'TOOL_DENIED',
      };
    return undefined;
  }

  #answered(
    answer: ApprovalAnswer,
    request: AuthorizationRequest,
    options: AuthorizeOptions,
  ): AuthorizationDecision {
    if (answer === true) return { decision: 'allow', stage: 'approval', reason: 'approved' };
    if (answer === false)
      return { decision: 'deny', stage: 'approval', reason: 'not approved', code: 'TOOL_DENIED' };
    if (typeof answer === 'object' && answer !== null && answer.decision === 'park')
      return parkOrDeny(request, options.canPark, 'the approver', answer.reason);
    return fromAnswer(answer, 'approval', request);
  }
}

function checkRules(rules: readonly AuthorizationRule[] | undefined): readonly AuthorizationRule[] {
  if (rules === undefined) return [];
  if (!Array.isArray(rules))
    throw new MusterError('INVALID_CONFIGURATION', 'policy.rules must be an array.');
  const ids = new Set<string>();
  for (const rule of rules) {
    if (typeof rule?.id !== 'string' || rule.id === '' || typeof rule.authorize !== 'function') {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        'Each policy rule needs { id: string, authorize(request) }.',
      );
    }
    if (ids.has(rule.id))
      throw new MusterError('INVALID_CONFIGURATION', `Two policy rules share the id '${rule.id}'.`);
    ids.add(rule.id);
  }
  return [...rules];
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
