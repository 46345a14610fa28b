export { MUSTER_ERROR_CODES } from './error-codes.js';
export type {
  MusterErrorCode,
  ToolErrorCode,
  McpErrorCode,
  ModelErrorCode,
  SessionErrorCode,
} from './error-codes.js';
export { MusterError, ToolError, McpError, ModelError, SessionError } from './muster-error.js';
export type { MusterErrorDetails, MusterErrorOptions } from './muster-error.js';
export { toMusterError, abortedError } from './to-muster-error.js';
