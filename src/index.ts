/**
 * Muster: an agent runtime whose tools come from the Model Context Protocol.
 *
 * Any new export added here becomes public API. Use named exports, listed by hand.
 *
 * @module muster-agent
 */

// Agent
export { Agent, createAgent, DEFAULT_LIMITS } from './agent/index.js';
export type {
  AgentSessions,
  ArchivedItemSummary,
  ArchivedResultRef,
  ArchivedToolResult,
  ArchiveReadOptions,
  ChildAgentOptions,
  AgentToolOptions,
  AgentOptions,
  RunRequest,
  SendResult,
  Observability,
  Hooks,
  ModelRetryOptions,
  AgentEvent,
  AgentEventType,
  SessionStartedEvent,
  ModelDeltaEvent,
  ModelCompletedEvent,
  SessionCompletedEvent,
  SessionFailedEvent,
  SteeringDeliveredEvent,
  WatchOptions,
  WatchedEvent,
  EventLogGap,
  McpContextOptions,
  Limits,
  OutputOption,
  OutputRequest,
  OutputSchema,
  OutputValue,
} from './agent/index.js';

// Tracing (SPEC 12b): structural OpenTelemetry types; `@opentelemetry/api` is an optional peer
export type {
  Tracer,
  TraceSpan,
  TraceSpanOptions,
  TraceContext,
  TraceAttributes,
  TraceAttributeValue,
} from './util/index.js';

// Tools
export {
  tool,
  isTool,
  HostToolExecutor,
  CompositeToolExecutor,
  ToolCatalog,
} from './tools/index.js';
export type {
  Tool,
  ToolSpec,
  StandardSchemaV1Like,
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
  ValidationIssue,
  ValidationOutcome,
  NamingMode,
  CatalogEntry,
  ToolApprovalRequestedEvent,
  ToolDecisionEvent,
  ToolCalledEvent,
  ToolProgressEvent,
  ToolCompletedEvent,
  ToolEvent,
  ToolHookContext,
  BeforeToolResult,
  BeforeToolHook,
  AfterToolResult,
  AfterToolHook,
} from './tools/index.js';

// MCP
export {
  createSdkMcpServer,
  sdkTool,
  getMcpExtensionSupport,
  assertMcpExtensionSupported,
} from './mcp/index.js';
export type {
  McpServerConfig,
  McpStdioServerConfig,
  McpHttpServerConfig,
  McpSseServerConfig,
  McpSdkServerConfig,
  McpAuth,
  McpPrincipalAuthProvider,
  McpTransportType,
  McpServerSource,
  McpProtocolPolicy,
  McpSandbox,
  McpOperationDefaults,
  McpReconnectOptions,
  McpOptions,
  SdkMcpServer,
  SdkToolDefinition,
  SdkToolContext,
  SdkToolArgs,
  SdkInputSchema,
  McpFacade,
  McpServerStatus,
  McpServerStatusValue,
  McpToolStatus,
  McpEvent,
  McpServerStatusEvent,
  McpToolDiscoveredEvent,
  McpCatalogUpdatedEvent,
  McpServerChangedEvent,
  McpDiagnosticEvent,
  ElicitationRequestedEvent,
  ElicitationCompletedEvent,
  SamplingRequestedEvent,
  McpHandlers,
  McpRoot,
  McpRequestOrigin,
  McpSamplingHandler,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationAnswer,
  McpLogMessage,
  OnElicitationHook,
  OnElicitationResultHook,
  McpConnectionInfo,
  McpServerDiagnostics,
  McpConnectionSummary,
  McpListenFilter,
  McpListenSubscription,
  McpNotice,
  McpCallToolOptions,
  McpOperationOptions,
  McpSignInOptions,
  McpRetryOptions,
  McpExtensionSupport,
} from './mcp/index.js';

// Policy
export { ToolPolicy, compilePattern } from './policy/index.js';
export type {
  Pattern,
  PolicySubject,
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
} from './policy/index.js';

// Model
export { scriptedModel, addUsage } from './model/index.js';
export type {
  ProviderMetadata,
  TextPart,
  ImagePart,
  UserContentPart,
  ReasoningPart,
  ToolCallPart,
  AssistantContentPart,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  ModelMessage,
  ModelToolDefinition,
  ReasoningEffort,
  ModelRequest,
  ModelToolChoice,
  ModelProviderOptions,
  ModelOutputFormat,
  Usage,
  StopReason,
  ModelPart,
  ModelCallOptions,
  ModelClientV1,
  ModelCapabilities,
  ModelClient,
  ScriptedToolCall,
  ScriptedTurnSpec,
  ScriptedTurn,
  ScriptedModel,
} from './model/index.js';

// Sessions
export { MemorySessionStore, DEFAULT_EVENT_LOG_MAX } from './session/index.js';
export type {
  MemorySessionStoreOptions,
  SessionLogEntry,
  SessionLogEvent,
  SessionEventQuery,
  SessionUpdateResult,
  SessionEventLog,
  SteeringTake,
  SessionStatus,
  SessionErrorRecord,
  SessionState,
  SessionPatch,
  SessionSummary,
  SessionListQuery,
  SessionPage,
  SessionLeaseRef,
  SessionWriteOptions,
  SessionLease,
  SessionStore,
  SessionArchive,
  SessionArchiveItem,
  Wait,
  WaitKind,
  WaitDecision,
  ApprovalWaitDecision,
  ElicitationWaitDecision,
  WaitQuery,
  WaitPage,
  DecideOptions,
  SessionWaits,
} from './session/index.js';

// Context: request shaping to the context limits, and the archive of large tool results
export {
  ContextManager,
  DEFAULT_CONTEXT_MAX_TOKENS,
  DEFAULT_CONTEXT_MAX_MESSAGES,
  MemoryArchiveStore,
  DEFAULT_ARCHIVE_BYTES_PER_SESSION,
} from './context/index.js';
export type {
  ContextManagerOptions,
  ContextRequest,
  ContextMetrics,
  ContextLimits,
  ContextTokenizer,
  ContextStrategy,
  ContextSummarizer,
  ContextCompactedEvent,
  ArchiveStore,
  ArchivedItem,
  ArchivedItemKind,
  ArchiveItemInput,
  MemoryArchiveStoreOptions,
  ContextOptions,
  ContextPage,
} from './context/index.js';

// Auth: OAuth for remote MCP servers (mcp.oauth) and where its tokens are kept
export {
  memoryTokenStore,
  fileTokenStore,
  keychainTokenStore,
  OAUTH_DEFAULTS,
} from './auth/index.js';
export type {
  McpOAuthServerOptions,
  McpAuthenticateResult,
  OAuthAuthorizeFunction,
  OAuthPrivateKeyJwk,
  OAuthSecretAuthMethod,
  TokenStore,
  StoredOAuthState,
  PendingOAuthLogin,
  FileTokenStoreOptions,
  KeychainTokenStoreOptions,
} from './auth/index.js';

// Errors
export {
  MusterError,
  ToolError,
  McpError,
  ModelError,
  SessionError,
  MUSTER_ERROR_CODES,
} from './errors/index.js';
export type {
  MusterErrorCode,
  ToolErrorCode,
  McpErrorCode,
  ModelErrorCode,
  SessionErrorCode,
  MusterErrorDetails,
  MusterErrorOptions,
} from './errors/index.js';
