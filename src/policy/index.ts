export { compilePattern, compilePatterns } from './pattern.js';
export type { Pattern, PolicySubject, PatternMatcher } from './pattern.js';
export { ToolPolicy } from './tool-policy.js';
export type { AuthorizeOptions } from './tool-policy.js';
export type { CallPolicy } from './call-policy.js';
export { DECIDE_AT_ONCE } from './decide-at-once.js';
export { LayeredPolicy } from './layered-policy.js';
export type {
  PolicyToolAnnotations,
  AuthorizationRequest,
  ConnectionSummary,
  DecisionKind,
  PolicyDecision,
  AuthorizationRule,
  ApprovalAnswer,
  Approver,
  DecisionStage,
  AuthorizationDecision,
  AuthorizationEvent,
  PolicyOptions,
} from './policy-types.js';
