/**
 * Every stable error code Muster reports. A code never changes meaning once released;
 * hosts branch on it instead of parsing messages.
 */
export const MUSTER_ERROR_CODES = [
  'INVALID_CONFIGURATION',
  'MCP_CONNECTION_FAILED',
  'MCP_DISCONNECTED',
  'MCP_AUTH_REQUIRED',
  'MCP_OPERATION_FAILED',
  'MCP_EXTENSION_UNSUPPORTED',
  'TOOL_NOT_FOUND',
  'TOOL_DENIED',
  'TOOL_APPROVAL_REQUIRED',
  'TOOL_ARGUMENTS_INVALID',
  'TOOL_RESULT_TOO_LARGE',
  'TOOL_EXECUTION_FAILED',
  'TOOL_OUTCOME_UNKNOWN',
  'TOOL_NAME_CONFLICT',
  'REGISTRY_BUSY',
  'SESSION_ALREADY_RUNNING',
  'SESSION_NOT_FOUND',
  'SESSION_STORE_FAILED',
  'AGENT_LIMIT_EXCEEDED',
  'MODEL_REQUEST_FAILED',
  'MODEL_RESPONSE_INVALID',
  'OUTPUT_INVALID',
  'BUDGET_EXHAUSTED',
  'WAIT_NOT_FOUND',
  'WAIT_STALE',
  'PRINCIPAL_MISMATCH',
  'ABORTED',
  'INTERNAL_ERROR',
] as const;

/** The union of stable error codes, derived from {@link MUSTER_ERROR_CODES}. */
export type MusterErrorCode = (typeof MUSTER_ERROR_CODES)[number];

/** Codes that describe the failure of one tool call; the model reads them as error results. */
export type ToolErrorCode = Extract<MusterErrorCode, `TOOL_${string}`>;

/** Codes of failures that concern an MCP server or its connection. */
export type McpErrorCode = Extract<MusterErrorCode, `MCP_${string}`>;

/** Codes of failures that concern the model provider. */
export type ModelErrorCode = Extract<MusterErrorCode, `MODEL_${string}`>;

/** Codes of failures that concern a session. */
export type SessionErrorCode = Extract<MusterErrorCode, `SESSION_${string}`>;

/**
 * The codes outside the four prefixed families (`INVALID_CONFIGURATION`, `REGISTRY_BUSY`,
 * `AGENT_LIMIT_EXCEEDED`, `OUTPUT_INVALID`, `BUDGET_EXHAUSTED`, `WAIT_NOT_FOUND`, `WAIT_STALE`,
 * `PRINCIPAL_MISMATCH`, `ABORTED`, `INTERNAL_ERROR`): raised as a plain `MusterError`.
 */
export type RuntimeErrorCode = Exclude<
  MusterErrorCode,
  ToolErrorCode | McpErrorCode | ModelErrorCode | SessionErrorCode
>;
