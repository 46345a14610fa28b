export { tool, isTool, toolAnnotationsShape } from './tool.js';
export type { Tool, ToolSpec } from './tool.js';
export type { StandardSchemaV1Like, InferOutput } from './standard-schema.js';
export { isStandardSchema, exportJsonSchema, validateStandard } from './standard-schema.js';
export type {
  JsonSchema,
  ToolAnnotations,
  ToolSource,
  ToolDefinition,
  ToolInfo,
  ToolProgress,
  ToolExecutionContext,
  ToolRunLink,
  ToolResult,
  CallToolResultLike,
  ToolReturn,
  ToolExecutor,
  ExecutorInitContext,
  ExecutorEvent,
  ExecutorRunContext,
  ValidationIssue,
  ValidationOutcome,
} from './tool-types.js';
export {
  MAX_TOOL_NAME_LENGTH,
  MCP_TOOL_PREFIX,
  isValidToolName,
  assertServerName,
  assertHostToolName,
  plainMcpToolName,
  safeMcpToolName,
  assignMcpToolNames,
} from './naming.js';
export type { NamingMode } from './naming.js';
export {
  compileJsonSchema,
  validateJsonSchema,
  validateJsonSchemaNow,
  formatIssues,
} from './json-schema-validator.js';
export { checkDirectToolCall, directCallDecision, mcpModelNameOf } from './direct-call.js';
export { errorResult, normalizeToolReturn, isCallToolResult, resultBytes } from './tool-result.js';
export type { NormalizedToolResult, ToolBlob } from './tool-result.js';
export { HostToolExecutor } from './host-tool-executor.js';
export { CompositeToolExecutor } from './composite-tool-executor.js';
export { ToolCatalog, modelToolOf } from './tool-catalog.js';
export type { CatalogEntry } from './tool-catalog.js';
export type {
  ToolHookContext,
  BeforeToolResult,
  BeforeToolHook,
  AfterToolResult,
  AfterToolHook,
} from './tool-hooks.js';
export { runToolCall } from './tool-call-pipeline.js';
export { RunScope, CallScope, runScopeOf, callParkingOf } from './run-scope.js';
export type { SignInNeed } from './run-scope.js';
export { CallParkSignal } from './call-parking.js';
export type {
  CallParking,
  ParkedInputs,
  ParkedTask,
  SentTask,
  TaskResumption,
} from './call-parking.js';
export { OWN_EXECUTOR_FACTS } from './executor-facts.js';
export type { OwnExecutor, OwnExecutorFacts } from './executor-facts.js';
export { OWN_RUN_VIEW, executorForRun } from './run-view.js';
export type { RunViewSource } from './run-view.js';
export type {
  ToolCallRequest,
  ToolCallEnvironment,
  ToolCallOutcome,
  CallWaits,
  WaitedDecision,
  InputResumption,
  ParkedInput,
} from './tool-call-types.js';
export { eventBase, notRunOutcome, toolCompletedEvent } from './call-events.js';
export type {
  ToolApprovalRequestedEvent,
  ToolDecisionEvent,
  ToolCalledEvent,
  ToolProgressEvent,
  ToolTaskEvent,
  ToolCompletedEvent,
  ToolEvent,
} from './tool-events.js';
export { ToolSearchExecutor, TOOL_SEARCH_TOOL_NAME, foundToolNames } from './tool-search-tool.js';
export type { ToolSearchLoad } from './tool-search-tool.js';
export { searchIndexFor } from './tool-search-cache.js';
export { ToolSearchIndex } from './tool-search-index.js';
export type { SearchableTool } from './tool-search-index.js';
