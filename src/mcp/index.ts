// The MCP folder's face: what the agent and the package root use. Config parsing, the
// registry parts, verdict caches and concurrency helpers stay inside the folder.
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
  McpTasksOptions,
  McpOptions,
} from './contracts/config-types.js';
export { createSdkMcpServer, sdkTool } from './servers/sdk-server.js';
export type {
  SdkMcpServer,
  SdkToolDefinition,
  SdkToolContext,
  SdkToolArgs,
  SdkInputSchema,
} from './servers/sdk-server.js';
export { createMcpRuntime } from './mcp-runtime.js';
export { McpFacade } from './mcp-facade.js';
export type {
  McpServerStatus,
  McpServerStatusValue,
  McpToolStatus,
} from './contracts/mcp-status.js';
export type {
  McpEvent,
  McpServerStatusEvent,
  McpToolDiscoveredEvent,
  McpCatalogUpdatedEvent,
  McpServerChangedEvent,
  McpDiagnosticEvent,
} from './contracts/mcp-events.js';
export type {
  ElicitationRequestedEvent,
  ElicitationCompletedEvent,
  SamplingRequestedEvent,
} from './contracts/mcp-events.js';
export type { AgentSampler } from './handlers/sampling-handler.js';
export type {
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
} from './contracts/handler-types.js';
export type {
  McpConnectionInfo,
  McpServerDiagnostics,
  McpConnectionSummary,
  McpListenFilter,
  McpListenSubscription,
  McpNotice,
  McpCallToolOptions,
  McpCallToolTaskOptions,
  McpTaskHandle,
  McpTaskState,
  McpOperationOptions,
  McpSignInOptions,
  McpRetryOptions,
} from './contracts/operation-types.js';
export {
  getMcpExtensionSupport,
  assertMcpExtensionSupported,
} from './operations/extension-support.js';
export { mcpContentText, mcpTextOf } from './contracts/content-text.js';
export { taskPollDelayMs } from './contracts/mcp-defaults.js';
export { mcpAppVisibilityOf } from './connection/app-visibility.js';
export type { McpExtensionSupport } from './operations/extension-support.js';
export { McpClientManager } from './mcp-client-manager.js';
export {
  MCP_CONFIG_SCOPES,
  checkMcpFileServer,
  mcpConfigPath,
  parseMcpConfigScope,
  readMcpConfigFile,
  redactMcpServerConfig,
  sameMcpDeclaration,
} from './config/config-file.js';
export type { McpConfigScope, McpFileServer } from './config/config-file.js';
export { declarationFingerprint } from './config/declaration-fingerprint.js';
