import type { PolicySubject } from './pattern.js';
import type {
  AuthorizationDecision,
  AuthorizationRequest,
  DecisionKind,
  PolicyDecision,
} from './policy-types.js';

const DECISIONS: ReadonlySet<string> = new Set(['allow', 'deny', 'redirect', 'park']);

/** What the deny and allow patterns of a request are matched against. */
export function subjectOf(request: AuthorizationRequest): PolicySubject {
  if (request.kind === 'connection')
    return {
      kind: 'connection',
      server: request.server ?? request.capability.slice('mcp_connect:'.length),
    };
  if (request.kind === 'sampling')
    return {
      kind: 'sampling',
      server: request.server ?? request.capability.slice('mcp_sampling:'.length),
    };
  return {
    kind: 'tool',
    name: request.capability,
    ...(request.server !== undefined ? { server: request.server } : {}),
    ...(request.originalName !== undefined ? { originalName: request.originalName } : {}),
  };
}

/** The decision of a request that matched `policy.deny`. */
export function deniedByList(): AuthorizationDecision {
  return { decision: 'deny', stage: 'deny', reason: 'matched policy.deny', code: 'TOOL_DENIED' };
}

/**
 * A rule's or an approver's answer as a decision: a kind or a `PolicyDecision`, checked (an
 * invalid answer, a rule's park, a redirect without a message deny, fail closed).
 */
export function fromAnswer(
  answer: DecisionKind | PolicyDecision,
  stage: 'rule' | 'approval',
  request: AuthorizationRequest,
  ruleId?: string,
): AuthorizationDecision {
  const d: PolicyDecision | undefined = typeof answer === 'string' ? { decision: answer } : answer;
  const base = ruleId !== undefined ? { stage, ruleId } : { stage };
  if (typeof d !== 'object' || d === null || !DECISIONS.has(d.decision)) {
    return {
      ...base,
      decision: 'deny',
      reason: `invalid ${stage} decision ${JSON.stringify(answer)}`,
      code: 'TOOL_DENIED',
    };
  }
  if (d.decision === 'park')
    return {
      ...base,
      decision: 'deny',
      reason: 'a rule cannot park a call (only the approver or policy.park can)',
      code: 'TOOL_DENIED',
    };
  const extra = {
    ...(d.reason !== undefined ? { reason: String(d.reason) } : {}),
    ...(d.metadata !== undefined ? { metadata: d.metadata } : {}),
  };
  if (d.decision === 'redirect') {
    if (request.kind !== 'tool' || typeof d.message !== 'string' || d.message.trim() === '') {
      return {
        ...base,
        decision: 'deny',
        reason:
          request.kind === 'tool'
            ? 'redirect without a message'
            : 'connections cannot be redirected',
        code: 'TOOL_DENIED',
      };
    }
    return { ...base, ...extra, decision: 'redirect', message: d.message };
  }
  if (d.decision === 'deny') return { ...base, ...extra, decision: 'deny', code: 'TOOL_DENIED' };
  return { ...base, ...extra, decision: 'allow' };
}
