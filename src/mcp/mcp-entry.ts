/**
 * The `muster-agent/mcp` entry: MCP without an agent. Importing it loads no agent code, and
 * (like the root) no MCP client until the first connect.
 *
 * @module muster-agent/mcp
 */
export { McpClientManager } from './mcp-client-manager.js';
export type { McpClientManagerOptions } from './mcp-client-manager.js';
export {
  getMcpExtensionSupport,
  assertMcpExtensionSupported,
} from './operations/extension-support.js';
export type { McpExtensionSupport } from './operations/extension-support.js';
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
  McpRetryOptions,
} from './contracts/operation-types.js';
export type {
  McpHandlers,
  McpRoot,
  McpRequestOrigin,
  McpSamplingHandler,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationAnswer,
  McpLogMessage,
  McpElicitationHooks,
  OnElicitationHook,
  OnElicitationResultHook,
} from './contracts/handler-types.js';
export type {
  McpServerConfig,
  McpStdioServerConfig,
  McpHttpServerConfig,
  McpSseServerConfig,
  McpSdkServerConfig,
  McpOptions,
  McpReconnectOptions,
  McpTasksOptions,
} from './contracts/config-types.js';
export type { McpServerStatus } from './contracts/mcp-status.js';
export { memoryTokenStore, fileTokenStore, keychainTokenStore } from '../auth/index.js';
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
} from '../auth/index.js';
export type { McpEvent } from './contracts/mcp-events.js';
