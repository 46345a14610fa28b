/**
 * The `muster-agent/query` entry: a message-stream `query()` facade over `Agent` for hosts
 * written against query()-style SDKs. Any export added here becomes public API.
 *
 * @module muster-agent/query
 */
export { query } from './query.js';
export type { Query, QueryParams, QueryAuthenticateResult } from './query.js';
export type { QueryOptions, QueryMcpServerConfig } from './query-options.js';
export { DEFAULT_CONTROL_REQUEST_TIMEOUT_MS } from './control-request.js';
export type {
  QueryMessage,
  QuerySystemInitMessage,
  QueryElicitationCompleteMessage,
  QueryAssistantMessage,
  QueryStreamEventMessage,
  QueryRawStreamEvent,
  QueryStreamContentBlock,
  QueryUserMessage,
  QueryResultMessage,
  QueryResultSubtype,
  QueryOutputFormat,
  QueryContentBlock,
  QueryUsage,
  QueryPermissionDenial,
  QueryPermissionResult,
  QueryCanUseTool,
  QueryElicitationRequest,
  QueryElicitationResult,
  QueryOnElicitation,
  QueryMcpServerStatus,
  QueryInitializationResult,
} from './query-types.js';
