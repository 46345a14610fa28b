import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { SecretRegistry } from '../util/index.js';
import type { CheckedOAuthOptions } from './oauth-config.js';
import { authError } from './oauth-errors.js';
import type { StoredOAuthState, TokenStore } from './token-store.js';

/** What a provider asks of the login it serves: `state`, the PKCE verifier, the URL. */
export interface LoginHooks {
  /** The server's registry name (for error messages). */
  readonly server: string;
  readonly secrets: SecretRegistry;
  /** A new single-use `state` for an authorization request. */
  newState(): string;
  /** Keeps the PKCE verifier of the authorization request being made. */
  saveVerifier(verifier: string): void;
  /** The verifier of the code being redeemed. */
  verifier(): string;
  /** The authorization URL of the request being made (never opened by the provider). */
  onAuthorizationUrl(url: URL): void;
}

function remember(secrets: SecretRegistry, tokens: StoredOAuthTokens | undefined): void {
  if (tokens) secrets.add(tokens.access_token, tokens.refresh_token, tokens.id_token);
}

/**
 * Muster's own `OAuthClientProvider` for one server: tokens, the client registration and the
 * discovery state live in a {@link TokenStore} under the server's namespace (and in memory);
 * `state`, the verifier and the authorization URL go to the login ({@link LoginHooks}).
 * A pre-registered client (`clientId`) is never replaced by a registration; with
 * `client_credentials`, the official machine provider (`machine`) makes the token request.
 */
export async function createStoreProvider(
  checked: CheckedOAuthOptions,
  store: TokenStore,
  key: string,
  hooks: LoginHooks,
  machine?: OAuthClientProvider,
): Promise<ProviderParts> {
  const { options } = checked;
  let state: StoredOAuthState = {};
  const adopt = (next: StoredOAuthState | undefined): void => {
    state = next ?? {};
    remember(hooks.secrets, state.tokens);
    hooks.secrets.add(state.clientInformation?.client_secret);
  };
  adopt(await store.get(key));
  hooks.secrets.add(options.clientSecret);
  const save = async (patch: Partial<StoredOAuthState>): Promise<void> => {
    adopt(await store.update(key, (current) => ({ ...current, ...patch })));
  };
  // the official client authenticates token requests as the client information says
  const authMethod =
    options.tokenEndpointAuthMethod === undefined
      ? {}
      : { token_endpoint_auth_method: options.tokenEndpointAuthMethod };
  const preRegistered: StoredOAuthClientInformation | undefined =
    options.clientId === undefined
      ? undefined
      : {
          client_id: options.clientId,
          ...(options.clientSecret === undefined ? {} : { client_secret: options.clientSecret }),
          ...(options.expectedIssuer === undefined ? {} : { issuer: options.expectedIssuer }),
          ...authMethod,
        };
  const metadata: OAuthClientMetadata = machine?.clientMetadata ?? {
    client_name: 'Muster',
    redirect_uris: checked.redirectUri ? [checked.redirectUri.href] : [],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  };
  const provider: OAuthClientProvider = {
    // eslint-disable-next-line no-restricted-syntax -- one per OAuth session, not per run or call
    get redirectUrl() {
      return checked.grant === 'client_credentials' ? undefined : checked.redirectUri?.href;
    },
    // eslint-disable-next-line no-restricted-syntax -- one per OAuth session, not per run or call
    get clientMetadata() {
      return metadata;
    },
    ...(options.clientMetadataUrl === undefined
      ? {}
      : { clientMetadataUrl: options.clientMetadataUrl }),
    state: () => hooks.newState(),
    clientInformation: async () => {
      if (!machine) return preRegistered ?? state.clientInformation;
      const info = await machine.clientInformation();
      return info && { ...info, ...authMethod };
    },
    tokens: () => state.tokens,
    saveTokens: async (tokens) => {
      remember(hooks.secrets, tokens);
      await save({ tokens, savedAt: Date.now() });
    },
    redirectToAuthorization: (url) => hooks.onAuthorizationUrl(url),
    saveCodeVerifier: (verifier) => hooks.saveVerifier(verifier),
    codeVerifier: () => hooks.verifier(),
    discoveryState: () => state.discovery,
    saveDiscoveryState: async (discovery: OAuthDiscoveryState) => {
      checkIssuer(hooks.server, checked, discovery);
      checkAuthMethod(hooks.server, checked, discovery);
      await save({ discovery });
    },
    invalidateCredentials: async (scope) => {
      if (scope === 'verifier') return;
      const held = state.tokens?.access_token;
      adopt(
        await store.update(key, (current) => {
          const next: StoredOAuthState = { ...current };
          // only the tokens this process holds: newer ones another process saved stay
          if ((scope === 'all' || scope === 'tokens') && current?.tokens?.access_token === held)
            delete (next as { tokens?: unknown }).tokens;
          if (scope === 'all' || scope === 'client')
            delete (next as { clientInformation?: unknown }).clientInformation;
          if (scope === 'all' || scope === 'discovery')
            delete (next as { discovery?: unknown }).discovery;
          return next;
        }),
      );
    },
  };
  // A pre-registered or machine client must never be replaced by a dynamic registration
  // (which would send the user to whatever authorization server the MCP server names).
  if (preRegistered === undefined && machine === undefined) {
    provider.saveClientInformation = async (clientInformation) => {
      hooks.secrets.add(clientInformation.client_secret);
      await save({ clientInformation });
    };
  }
  if (machine?.prepareTokenRequest)
    provider.prepareTokenRequest = machine.prepareTokenRequest.bind(machine);
  if (machine?.addClientAuthentication)
    provider.addClientAuthentication = machine.addClientAuthentication.bind(machine);
  return {
    provider,
    reload: async () => adopt(await store.get(key)),
    exclusive: (work) => (store.exclusive ? store.exclusive(key, work) : work()),
  };
}

/** A provider, and how to pick up what another process saved to its store since. */
export interface ProviderParts {
  readonly provider: OAuthClientProvider;
  /** Re-reads the store (a no-op for host providers, which keep their own state). */
  reload(): Promise<void>;
  /**
   * Runs `work` under the store's `exclusive` lock of this namespace (just runs it for host
   * providers and stores without one).
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Refuses discovery that found another authorization server than `expectedIssuer`, before
 * any registration, code or secret is sent to it.
 */
function checkIssuer(
  server: string,
  checked: CheckedOAuthOptions,
  discovery: OAuthDiscoveryState,
): void {
  const expected = checked.options.expectedIssuer;
  if (expected === undefined) return;
  const found = discovery.authorizationServerMetadata?.issuer ?? discovery.authorizationServerUrl;
  if (found.replace(/\/$/, '') !== expected.replace(/\/$/, '')) {
    throw authError(
      server,
      'issuer-mismatch',
      `Server '${server}': its authorization server is not mcp.oauth.${server}.expectedIssuer; nothing was sent to it.`,
    );
  }
}

/**
 * Refuses an authorization server whose metadata lists its token endpoint's client
 * authentication methods without the one `tokenEndpointAuthMethod` chose, before the secret
 * is sent (the official client would pick another one).
 */
function checkAuthMethod(
  server: string,
  checked: CheckedOAuthOptions,
  discovery: OAuthDiscoveryState,
): void {
  const chosen = checked.options.tokenEndpointAuthMethod;
  const listed = discovery.authorizationServerMetadata?.token_endpoint_auth_methods_supported;
  if (chosen === undefined || listed === undefined || listed.length === 0) return;
  if (listed.includes(chosen)) return;
  throw authError(
    server,
    'token-request-failed',
    `Server '${server}': its authorization server does not accept ${chosen} (it lists ${listed.join(', ')}); nothing was sent to its token endpoint. Change mcp.oauth.${server}.tokenEndpointAuthMethod.`,
  );
}

const DELEGATED = [
  'saveClientInformation',
  'addClientAuthentication',
  'dpop',
  'validateResourceURL',
  'scopeForRefresh',
  'invalidateCredentials',
  'prepareTokenRequest',
  'saveAuthorizationServerUrl',
  'authorizationServerUrl',
  'saveResourceUrl',
  'resourceUrl',
  'saveDiscoveryState',
  'discoveryState',
] as const;

/**
 * Wraps a host's `OAuthClientProvider`: its storage, registration and grant stay its own, but
 * `state`, the verifier and the authorization URL belong to Muster's login, so the host's
 * provider never opens a browser itself and every token it hands out is redacted.
 */
export function wrapHostProvider(
  host: OAuthClientProvider,
  hooks: LoginHooks,
): OAuthClientProvider {
  const wrapped: OAuthClientProvider = {
    // eslint-disable-next-line no-restricted-syntax -- one per OAuth session, not per run or call
    get redirectUrl() {
      return host.redirectUrl;
    },
    // eslint-disable-next-line no-restricted-syntax -- one per OAuth session, not per run or call
    get clientMetadata() {
      return host.clientMetadata;
    },
    ...(host.clientMetadataUrl === undefined ? {} : { clientMetadataUrl: host.clientMetadataUrl }),
    state: () => hooks.newState(),
    clientInformation: async (ctx) => {
      const info = await host.clientInformation(ctx);
      hooks.secrets.add(info?.client_secret);
      return info;
    },
    tokens: async (ctx) => {
      const tokens = await host.tokens(ctx);
      remember(hooks.secrets, tokens);
      return tokens;
    },
    saveTokens: (tokens, ctx) => {
      remember(hooks.secrets, tokens);
      return host.saveTokens(tokens, ctx);
    },
    redirectToAuthorization: (url) => hooks.onAuthorizationUrl(url),
    saveCodeVerifier: (verifier) => hooks.saveVerifier(verifier),
    codeVerifier: () => hooks.verifier(),
  };
  const target = wrapped as unknown as Record<string, unknown>;
  const source = host as unknown as Record<string, unknown>;
  for (const name of DELEGATED) {
    const member = source[name];
    if (typeof member === 'function')
      target[name] = (member as (...a: unknown[]) => unknown).bind(host);
  }
  return wrapped;
}
