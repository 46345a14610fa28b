// The auth folder's face: OAuth for remote MCP servers (SPEC section 8) and where its state is
// kept between logins and processes. Any new export here becomes reachable by the rest of
// Muster (and, through the root and `muster-agent/mcp`, by users).

// the options
export type {
  McpOAuthServerOptions,
  McpAuthenticateResult,
  OAuthAuthorizeFunction,
  OAuthPrivateKeyJwk,
  OAuthSecretAuthMethod,
} from './oauth-options.js';
export { OAUTH_DEFAULTS } from './oauth-options.js';

// the store contract and the stores
export { oauthNamespace } from './token-store.js';
export type { PendingOAuthLogin, StoredOAuthState, TokenStore } from './token-store.js';
export { memoryTokenStore } from './memory-token-store.js';
export { fileTokenStore, CREDENTIALS_FILE_NAME } from './file-token-store.js';
export { signedInOrigins } from './signed-in-origins.js';
export type { FileTokenStoreOptions } from './file-token-store.js';
export { keychainTokenStore } from './keychain-token-store.js';
export type { KeychainTokenStoreOptions } from './keychain-token-store.js';

// principals (SPEC 15.4): the users a run acts for, each with its own tokens
export { checkPrincipal, MAX_PRINCIPAL_LENGTH } from './principal.js';

// the OAuth layer the MCP connections use
export { OAuthSession } from './oauth-session.js';
export { PrincipalSessions } from './principal-sessions.js';
export { createOAuthSession, osUser, tokenStoreChoices } from './session-factory.js';
export type { TokenStoreChoices } from './session-factory.js';
export { authError, oauthReasonOf } from './oauth-errors.js';
export type { OAuthFailureReason } from '../errors/index.js';
export { wrapAuthProvider } from './provider-auth.js';
