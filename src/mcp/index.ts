export type {
  McpServerConfig,
  McpStdioServerConfig,
  McpHttpServerConfig,
  McpSseServerConfig,
  McpSdkServerConfig,
  McpAuth,
  McpTransportType,
  McpServerSource,
  McpProtocolPolicy,
  McpSandbox,
  McpOperationDefaults,
  McpOptions,
} from './config-types.js';
export { createSdkMcpServer, sdkTool, isSdkMcpServer } from './sdk-server.js';
export type { SdkMcpServer, SdkToolDefinition, SdkToolContext } from './sdk-server.js';
export { parseMcpOptions } from './config-schema.js';
export {
  collectDeclarations,
  declare,
  musterHome,
  transportOf,
  normalizedKey,
} from './config-sources.js';
export type { ServerDeclaration, DeclarationSources } from './config-sources.js';
export { MCP_DEFAULTS } from './mcp-defaults.js';
export { createMcpRuntime } from './mcp-runtime.js';
export type { McpRuntime, McpRuntimeInput } from './mcp-runtime.js';
export { McpToolExecutor } from './mcp-tool-executor.js';
export { McpFacade } from './mcp-facade.js';
export type { McpFacadeHost } from './mcp-facade.js';
export type { McpServerStatus, McpServerStatusValue, McpToolStatus } from './mcp-status.js';
export type {
  McpEvent,
  McpServerStatusEvent,
  McpToolDiscoveredEvent,
  McpCatalogUpdatedEvent,
  McpServerChangedEvent,
  McpDiagnosticEvent,
} from './mcp-events.js';
export { mapWithConcurrency } from './concurrency.js';
export { FileVerdictCache } from './verdict-cache.js';
export type { VerdictCache } from './verdict-cache.js';
