export { MUSTER_ERROR_CODES } from './error-codes.js';
export type {
  MusterErrorCode,
  ToolErrorCode,
  McpErrorCode,
  ModelErrorCode,
  SessionErrorCode,
  RuntimeErrorCode,
} from './error-codes.js';
export { MusterError, ToolError, McpError, ModelError, SessionError } from './muster-error.js';
export type { MusterErrorDetails, MusterErrorOptions } from './muster-error.js';
export { toMusterError, abortedError, agentClosedError, isAgentClosed } from './to-muster-error.js';
export { redact, MIN_SECRET_LENGTH } from './redact-text.js';
export { redactedCause } from './redacted-cause.js';
// Failure reasons: internal to the package (the root exports none of them)
export {
  MCP_TRANSPORT_FAILURE_REASONS,
  OAUTH_FAILURE_REASONS,
  MCP_FAILURE_REASONS,
  TOOL_OUTCOME_UNKNOWN_REASONS,
  TOOL_FAILURE_REASONS,
  MODEL_FAILURE_REASONS,
  SESSION_FAILURE_REASONS,
  DRIVER_FAILURE_REASONS,
  RUNTIME_FAILURE_REASONS,
  isReasonIn,
} from './failure-reasons.js';
export type {
  McpTransportFailureReason,
  OAuthFailureReason,
  McpFailureReason,
  ToolOutcomeUnknownReason,
  ToolFailureReason,
  ModelFailureReason,
  SessionFailureReason,
  DriverFailureReason,
  RuntimeFailureReason,
  ReasonOf,
} from './failure-reasons.js';
