// The auth folder's face: OAuth for remote MCP servers (SPEC section 8) and token stores.
export type {
  McpOAuthServerOptions,
  McpAuthenticateResult,
  OAuthAuthorizeFunction,
  OAuthPrivateKeyJwk,
} from './oauth-options.js';
export { OAUTH_DEFAULTS } from './oauth-options.js';
export type { TokenStore, StoredOAuthState } from './token-store.js';
export { oauthNamespace } from './token-store.js';
export { memoryTokenStore } from './memory-token-store.js';
export { OAuthSession } from './oauth-session.js';
export type { OAuthChallenge } from './oauth-session.js';
export { createOAuthSession, tokenStoreChoices } from './session-factory.js';
export type { TokenStoreChoices } from './session-factory.js';
export { authError, oauthReasonOf } from './oauth-errors.js';
export type { OAuthFailureReason } from './oauth-errors.js';
export { wrapAuthProvider } from './provider-auth.js';
