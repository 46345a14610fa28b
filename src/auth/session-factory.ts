import { userInfo } from 'node:os';
import type { FetchLike } from '@modelcontextprotocol/client';
import type { SecretRegistry } from '../util/index.js';
import { MusterError } from '../errors/index.js';
import { checkOAuthOptions } from './oauth-config.js';
import { checkPrincipal } from './principal.js';
import type { OAuthServerFacts } from './oauth-config.js';
import type { McpOAuthServerOptions } from './oauth-options.js';
import { OAuthSession } from './oauth-session.js';
import { memoryTokenStore } from './memory-token-store.js';
import { oauthNamespace } from './token-store.js';
import type { TokenStore } from './token-store.js';

/** Where the named stores come from; `memory` is one store per owner (agent or manager). */
export interface TokenStoreChoices {
  readonly memory: TokenStore;
  readonly file: () => TokenStore;
  readonly keychain: () => TokenStore;
}

/** The OS user name the stores' keys carry (`muster:<user>:…`); `default` when unknown. */
export function osUser(): string {
  try {
    return userInfo().username || 'default';
  } catch {
    return 'default';
  }
}

/** Makes the stores of one owner: its own memory store; file and keychain made on first use. */
export function tokenStoreChoices(
  file: () => TokenStore,
  keychain: () => TokenStore,
): TokenStoreChoices {
  let fileStore: TokenStore | undefined;
  let keychainStore: TokenStore | undefined;
  return {
    memory: memoryTokenStore(),
    file: () => (fileStore ??= file()),
    keychain: () => (keychainStore ??= keychain()),
  };
}

/**
 * Checks an `mcp.oauth` entry against its server's declaration and makes its
 * {@link OAuthSession}: the local user's, or with `principal` that principal's (its own
 * namespace of the store). No I/O: the store is first read at the first connect.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for an entry that does not fit its server, a
 *   bad principal id, or a principal on an entry whose host provider keeps the tokens.
 */
export function createOAuthSession(input: {
  readonly server: string;
  readonly facts: OAuthServerFacts;
  readonly options: McpOAuthServerOptions;
  readonly stores: TokenStoreChoices;
  readonly secrets: SecretRegistry;
  readonly fetch: FetchLike;
  /** The user the session signs in (SPEC 15.4); the local user when absent. */
  readonly principal?: string;
}): OAuthSession {
  const { principal } = input;
  // a principal's sign-in is always pulled: the host's `authorize` opens a browser for the
  // local user, never for a user a server process acts for
  const options =
    principal === undefined ? input.options : { ...input.options, authorize: undefined };
  const checked = checkOAuthOptions(input.server, input.facts, options);
  if (principal !== undefined) {
    checkPrincipal(principal);
    if (input.options.provider) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server '${input.server}': its mcp.oauth entry has a host provider, which keeps its own tokens, so Muster cannot keep them per principal; sign principals in through the provider, or drop it.`,
        { details: { server: input.server } },
      );
    }
  }
  const { store: choice = 'memory' } = input.options;
  const store =
    choice === 'memory'
      ? input.stores.memory
      : choice === 'file'
        ? input.stores.file()
        : choice === 'keychain'
          ? input.stores.keychain()
          : choice;
  input.secrets.add(input.options.clientSecret);
  let key: string | undefined;
  return new OAuthSession({
    server: input.server,
    checked,
    store,
    // made on first use: the OS user name may be looked up in the user database (a file read)
    // eslint-disable-next-line no-restricted-syntax -- one per OAuth session, not per run or call
    get key() {
      return (key ??= oauthNamespace(input.server, checked.serverUrl.href, osUser(), principal));
    },
    secrets: input.secrets,
    fetch: input.fetch,
    ...(principal === undefined ? {} : { principal }),
  });
}
