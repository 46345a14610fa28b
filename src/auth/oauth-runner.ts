import type * as ClientExports from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';
import type { AuthOptions, FetchLike, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { authError } from './oauth-errors.js';
import { toAuthFailure, withDeadline } from './oauth-failure.js';
import type { Login } from './oauth-login.js';
import { OAUTH_DEFAULTS } from './oauth-options.js';
import { createStoreProvider, wrapHostProvider } from './oauth-provider.js';
import type { LoginHooks, ProviderParts } from './oauth-provider.js';
import { guardOrigins } from './origin-guard.js';
import { isSecureOrLoopback } from '../util/index.js';
import { machineProvider } from './machine-provider.js';
import type { OAuthSessionInput } from './oauth-session-types.js';

type ClientModule = typeof ClientExports;

/** The scope and resource metadata an `auth()` run asks with. */
export interface AuthAsk {
  readonly scope?: string;
  readonly resourceMetadataUrl?: URL;
}

/**
 * Runs the official `auth()` for one server: makes the provider (Muster's over the store, the
 * host's wrapped, or a machine grant), loads the client lazily, guards and bounds every OAuth
 * request, gathers the login's draft, and turns failures into auth errors. No state of its
 * own besides the provider and the last refusal of the guard.
 */
export class AuthRunner {
  readonly #input: OAuthSessionInput;
  readonly #login: Login;
  #parts: Promise<ProviderParts> | undefined;
  #client: ClientModule | undefined;
  /** The last request the guard refused: the real reason when discovery falls back past it. */
  #refusal: Error | undefined;

  constructor(input: OAuthSessionInput, login: Login) {
    this.#input = input;
    this.#login = login;
  }

  /** Notes a request the transport's guard refused. */
  noteRefusal(error: Error): void {
    this.#refusal = error;
  }

  /** The provider, made on first use (reading the store). */
  ready(): Promise<ProviderParts> {
    this.#parts ??= this.#make();
    return this.#parts;
  }

  /** Forgets the provider, so the next use reads the store again. */
  reset(): void {
    this.#parts = undefined;
  }

  /** The official client module. */
  async client(): Promise<ClientModule> {
    this.#client ??= await import('@modelcontextprotocol/client');
    return this.#client;
  }

  /** One run of `auth()`: the draft gathered, a failure made an auth error. */
  async run(
    fetchFn: FetchLike,
    ask: AuthAsk,
    extra: Pick<AuthOptions, 'authorizationCode' | 'iss' | 'forceReauthorization'> = {},
  ): Promise<'AUTHORIZED' | 'REDIRECT'> {
    this.#refusal = undefined;
    const { provider } = await this.ready();
    const client = await this.client();
    const draft = this.#login.beginDraft();
    try {
      return await client.auth(provider, {
        serverUrl: this.#input.checked.serverUrl,
        fetchFn,
        ...(ask.scope === undefined ? {} : { scope: ask.scope }),
        ...(ask.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: ask.resourceMetadataUrl }),
        ...extra,
      });
    } catch (err) {
      const { server, secrets } = this.#input;
      throw toAuthFailure(server, err, this.#refusal, secrets, this.#client);
    } finally {
      this.#refusal = undefined;
      this.#login.endDraft(draft);
    }
  }

  /**
   * One run of `auth()` that may spend the refresh token, under the store's `exclusive` lock:
   * inside it the store is read again, and when its tokens are no longer the ones this
   * session held (`held`; `refused`, the access token the server just turned down), another
   * process or session has refreshed or signed in, so its tokens are used and nothing is
   * sent. The access token's `expires_in` is not consulted: a refused token is stale
   * whatever its age says, and one the server has not refused is tried before anything is
   * spent.
   */
  async refresh(
    fetchFn: FetchLike,
    ask: AuthAsk,
    held: StoredOAuthTokens | undefined,
    refused: string | undefined = held?.access_token,
  ): Promise<'AUTHORIZED' | 'REDIRECT'> {
    const parts = await this.ready();
    return parts.exclusive(async () => {
      await parts.reload();
      const stored = await parts.provider.tokens();
      const renewed =
        stored !== undefined &&
        (stored.access_token !== refused || stored.refresh_token !== held?.refresh_token);
      return renewed ? 'AUTHORIZED' : this.run(fetchFn, ask);
    });
  }

  /** The fetch of OAuth requests made outside the transport: guarded and bounded. */
  oauthFetch(): FetchLike {
    return withDeadline(
      guardOrigins(this.#input.fetch, {
        server: this.#input.server,
        origins: this.#input.checked.origins,
        onRefusal: (error) => this.noteRefusal(error),
      }),
      OAUTH_DEFAULTS.requestTimeoutMs,
    );
  }

  /**
   * Refuses an authorization URL that does not go to a trusted origin over HTTPS or
   * loopback, before anyone is sent there.
   */
  checkAuthorizationUrl(): void {
    const url = this.#login.readyUrl();
    if (!url) return;
    const { server, checked } = this.#input;
    const trusted = checked.origins.has(url.origin);
    if (isSecureOrLoopback(url) && trusted) return;
    this.#login.dropReady();
    throw authError(
      server,
      trusted ? 'insecure-url' : 'origin-not-allowed',
      `Server '${server}': the authorization server sends sign-ins to ${url.origin}, which is ${trusted ? 'neither https:// nor loopback' : `not in mcp.oauth.${server}.allowedOrigins`}; the sign-in was refused.`,
    );
  }

  async #make(): Promise<ProviderParts> {
    const { checked, store, key, secrets, server } = this.#input;
    const login = this.#login;
    const hooks: LoginHooks = {
      server,
      secrets,
      newState: () => {
        const state = randomBytes(32).toString('base64url');
        login.draftState(state);
        return state;
      },
      saveVerifier: (verifier) => login.draftVerifier(verifier),
      verifier: () => login.verifier(),
      onAuthorizationUrl: (url) => login.draftUrl(url),
    };
    if (checked.options.provider) {
      return {
        provider: wrapHostProvider(checked.options.provider, hooks),
        reload: async () => undefined,
        exclusive: (work) => work(),
      };
    }
    const machine =
      checked.grant === 'client_credentials'
        ? machineProvider(checked, await this.client())
        : undefined;
    return createStoreProvider(checked, store, key, hooks, machine);
  }
}
