/**
 * Authentication: where OAuth state is kept between logins and processes. Any new export
 * added here becomes part of what the rest of Muster (and, through the root, users) can reach.
 */

// the contract
export { oauthNamespace } from './token-store.js';
export type { StoredOAuthState, TokenStore } from './token-store.js';

// the stores
export { memoryTokenStore } from './memory-token-store.js';
export { fileTokenStore, CREDENTIALS_FILE_NAME } from './file-token-store.js';
export type { FileTokenStoreOptions } from './file-token-store.js';
export { keychainTokenStore, DEFAULT_KEYCHAIN_SERVICE } from './keychain-token-store.js';
export type { KeychainTokenStoreOptions } from './keychain-token-store.js';
