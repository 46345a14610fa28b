export { EXIT_CODES } from './exit-codes.js';
export { storedOAuthOptions } from './stored-oauth.js';
