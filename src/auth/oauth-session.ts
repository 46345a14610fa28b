import type * as ClientExports from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';
import type { AuthProvider, FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';
import { MusterError } from '../errors/index.js';
import type { SecretRegistry } from '../util/index.js';
import { checkCallback } from './oauth-callback.js';
import type { CheckedOAuthOptions } from './oauth-config.js';
import { authError, sanitizeRemoteText } from './oauth-errors.js';
import { Login } from './oauth-login.js';
import type { McpAuthenticateResult } from './oauth-options.js';
import { createStoreProvider, wrapHostProvider } from './oauth-provider.js';
import type { LoginHooks } from './oauth-provider.js';
import { guardOrigins } from './origin-guard.js';
import { machineProvider } from './machine-provider.js';
import type { TokenStore } from './token-store.js';

type ClientModule = typeof ClientExports;

/** What the transport passes to `onUnauthorized` (not exported by the client). */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/** What an {@link OAuthSession} is made of. */
export interface OAuthSessionInput {
  readonly server: string;
  readonly checked: CheckedOAuthOptions;
  readonly store: TokenStore;
  /** The namespace of this user and server in `store`. */
  readonly key: string;
  /** The server's secret registry: every credential OAuth sees joins it. */
  readonly secrets: SecretRegistry;
  /** The bounded, redirect-refusing fetch for OAuth requests made outside the transport. */
  readonly fetch: FetchLike;
}

/** A challenge of the resource server: what it asked for. */
export interface OAuthChallenge {
  readonly scope?: string;
  readonly resourceMetadataUrl?: URL;
}

/**
 * OAuth for one server (SPEC section 8): the transport's token source, one shared refresh for
 * every 401, logins in push and pull mode with single-use `state` and checked callbacks, scope
 * step-up, and logout. Never logs in interactively on its own: a 401 that no refresh fixes
 * fails with `MCP_AUTH_REQUIRED` (`login-required`), and the caller (the connector) decides.
 */
export class OAuthSession {
  readonly server: string;
  readonly #input: OAuthSessionInput;
  #provider: Promise<OAuthClientProvider> | undefined;
  #client: ClientModule | undefined;
  /** The bearer token each 401 answer was sent with, to skip refreshes already done. */
  readonly #sentWith = new WeakMap<Response, string | undefined>();
  #refreshing: Promise<boolean> | undefined;
  #challenge: OAuthChallenge = {};
  /** The scope asked for so far (the challenge's, widened by step-ups). */
  #scope: string | undefined;
  readonly #login: Login;
  #wantsStepUp = false;
  /** The last request the guard refused: the real reason when discovery falls back past it. */
  #refusal: Error | undefined;

  constructor(input: OAuthSessionInput) {
    this.server = input.server;
    this.#input = input;
    this.#scope = input.checked.options.scope;
    this.#login = new Login({
      server: input.server,
      checked: input.checked,
      secrets: input.secrets,
    });
  }

  /** True when logins are finished by the host's `authorize` (push mode). */
  get pushMode(): boolean {
    return this.#input.checked.options.authorize !== undefined;
  }

  /** True when a login waits for `submitOAuthCallback()`. */
  get waiting(): boolean {
    return this.#login.pending;
  }

  /** The authorization URL of the waiting login, for `authenticate()` to hand out again. */
  get pendingUrl(): string | undefined {
    return this.#login.url;
  }

  /** The transport's fetch: origins checked, 401 answers remembered with their token. */
  guard(fetch: FetchLike): FetchLike {
    return guardOrigins(fetch, {
      server: this.server,
      origins: this.#input.checked.origins,
      onRefusal: (error) => {
        this.#refusal = error;
      },
      onUnauthorizedResponse: (response, token) => this.#sentWith.set(response, token),
    });
  }

  /** The `AuthProvider` of the transport: the stored token, and a shared refresh on 401. */
  authProvider(): AuthProvider {
    return {
      token: async () => (await (await this.#providerReady()).tokens())?.access_token,
      onUnauthorized: (ctx) => this.#onUnauthorized(ctx),
    };
  }

  /**
   * Signs in: silently when a refresh or a machine grant suffices; else, in push mode, by the
   * host's `authorize` (resolving when tokens are saved), or, in pull mode, by returning the
   * URL the user must open. Any earlier login still waiting is cancelled.
   */
  async authenticate(signal: AbortSignal, force = false): Promise<McpAuthenticateResult> {
    this.#refusal = undefined;
    const provider = await this.#providerReady();
    const client = await this.#loadClient();
    this.#login.cancel();
    const draft = this.#login.beginDraft();
    let result: 'AUTHORIZED' | 'REDIRECT';
    try {
      result = await client.auth(provider, {
        serverUrl: this.#input.checked.serverUrl,
        fetchFn: this.#oauthFetch(),
        ...this.#authScope(),
        ...(force ? { forceReauthorization: true } : {}),
      });
    } catch (err) {
      throw this.#wrap(err);
    } finally {
      this.#login.endDraft(draft);
    }
    if (result === 'AUTHORIZED') {
      this.#wantsStepUp = false;
      return { requiresUserAction: false };
    }
    const url = this.#login.start(signal);
    const authorize = this.#input.checked.options.authorize;
    if (!authorize) return { authUrl: url, requiresUserAction: true };
    try {
      await this.submitCallback(await this.#login.push(authorize));
    } catch (err) {
      // a push login that failed does not stay waiting: the next connect starts a new one
      this.#login.cancel();
      throw err;
    }
    return { requiresUserAction: false };
  }

  /**
   * Finishes the waiting login with the callback URL: checked (destination, duplicates,
   * `state`, errors), the login consumed, then the code redeemed (with the `iss` check).
   */
  async submitCallback(callbackUrl: string | URL): Promise<void> {
    this.#refusal = undefined;
    const pending = this.#login.take((expected) => checkCallback(callbackUrl, expected));
    const provider = await this.#providerReady();
    const client = await this.#loadClient();
    try {
      const result = await client.auth(provider, {
        serverUrl: this.#input.checked.serverUrl,
        fetchFn: this.#oauthFetch(),
        authorizationCode: pending.callback.code,
        ...(pending.callback.iss === undefined ? {} : { iss: pending.callback.iss }),
        ...this.#authScope(),
      });
      if (result !== 'AUTHORIZED') {
        throw authError(
          this.server,
          'token-request-failed',
          `Server '${this.server}': the authorization code was not redeemed.`,
        );
      }
    } catch (err) {
      throw this.#wrap(err);
    } finally {
      pending.done();
    }
  }

  /**
   * Widens the scope after `403 insufficient_scope`, when the host allowed step-up: a new
   * login (push mode) for the union of the scopes asked so far, granted and challenged.
   *
   * @throws McpError `MCP_AUTH_REQUIRED` (`insufficient-scope`) when step-up is off, or in
   *   pull mode (the URL then waits for `authenticate()`).
   */
  async stepUp(challenge: OAuthChallenge, signal: AbortSignal): Promise<void> {
    const { options } = this.#input.checked;
    const insufficient = authError(
      this.server,
      'insufficient-scope',
      `Server '${this.server}' refused the request for lack of scope${challenge.scope ? ` (it asks for '${sanitizeRemoteText(challenge.scope, this.#input.secrets)}')` : ''}: ${options.stepUp ? 'sign in again with agent.mcp.authenticate()' : `set mcp.oauth.${this.server}.stepUp to allow a new sign-in with more scope`}.`,
    );
    if (!options.stepUp) throw insufficient;
    const client = await this.#loadClient();
    const provider = await this.#providerReady();
    const granted = (await provider.tokens())?.scope;
    this.#scope = client.computeScopeUnion(this.#scope, granted, challenge.scope);
    if (challenge.resourceMetadataUrl)
      this.#challenge = { ...this.#challenge, resourceMetadataUrl: challenge.resourceMetadataUrl };
    const force = client.isStrictScopeSuperset(this.#scope, granted);
    await this.#widenRegistration(provider, this.#scope);
    if (!this.pushMode && this.#input.checked.grant === 'authorization_code') {
      // pull mode: the wider login waits for the host's authenticate(), not for this call
      this.#wantsStepUp = force;
      throw insufficient;
    }
    await this.authenticate(signal, force);
  }

  /**
   * A client Muster registered itself may only ask for the scope it registered with: when a
   * step-up needs more, the registration is dropped so the next login registers again.
   */
  async #widenRegistration(
    provider: OAuthClientProvider,
    scope: string | undefined,
  ): Promise<void> {
    const { options } = this.#input.checked;
    if (options.provider || options.clientId !== undefined || !scope) return;
    const registered = (await provider.clientInformation()) as { scope?: unknown } | undefined;
    if (typeof registered?.scope !== 'string') return;
    const have = new Set(registered.scope.split(' '));
    if (scope.split(' ').every((s) => have.has(s))) return;
    await provider.invalidateCredentials?.('client');
  }

  /** True when a call asked for more scope than granted and a pull-mode login must widen it. */
  get wantsStepUp(): boolean {
    return this.#wantsStepUp;
  }

  /** Forgets this server's local tokens (the store entry, or the host provider's tokens). */
  async logout(): Promise<void> {
    this.#login.cancel();
    const host = this.#input.checked.options.provider;
    if (host) {
      await host.invalidateCredentials?.('tokens');
    } else {
      await this.#input.store.delete(this.#input.key);
    }
    this.#provider = undefined;
  }

  /** Cancels a waiting login (the agent closes). */
  close(): void {
    this.#login.cancel();
  }

  async #onUnauthorized(ctx: UnauthorizedContext): Promise<void> {
    const provider = await this.#providerReady();
    const used = this.#sentWith.get(ctx.response);
    const current = (await provider.tokens())?.access_token;
    // another request refreshed the token since this one was sent: retry with the new one
    if (current !== undefined && used !== current) return;
    const client = await this.#loadClient();
    const { resourceMetadataUrl, scope } = client.extractWWWAuthenticateParams(ctx.response);
    this.#challenge = {
      ...(scope === undefined ? {} : { scope }),
      ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }),
    };
    if (this.#input.checked.options.scope === undefined && scope !== undefined) {
      this.#scope = client.computeScopeUnion(this.#scope, scope);
    }
    this.#refreshing ??= this.#silent(ctx.fetchFn).finally(() => {
      this.#refreshing = undefined;
    });
    if (await this.#refreshing) return;
    throw authError(
      this.server,
      'login-required',
      `Server '${this.server}' needs a sign-in: ${this.pushMode ? 'the next connect will ask for it' : `call agent.mcp.authenticate('${this.server}')`}.`,
    );
  }

  /** A refresh (or machine grant) without any user step; false when a login is needed. */
  async #silent(fetchFn: FetchLike): Promise<boolean> {
    this.#refusal = undefined;
    const provider = await this.#providerReady();
    const client = await this.#loadClient();
    const draft = this.#login.beginDraft();
    try {
      const result = await client.auth(provider, {
        serverUrl: this.#input.checked.serverUrl,
        fetchFn,
        ...this.#authScope(),
      });
      return result === 'AUTHORIZED';
    } catch (err) {
      throw this.#wrap(err);
    } finally {
      this.#login.endDraft(draft);
    }
  }

  #authScope(): { scope?: string; resourceMetadataUrl?: URL } {
    return {
      ...(this.#scope === undefined ? {} : { scope: this.#scope }),
      ...(this.#challenge.resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: this.#challenge.resourceMetadataUrl }),
    };
  }

  #oauthFetch(): FetchLike {
    return guardOrigins(this.#input.fetch, {
      server: this.server,
      origins: this.#input.checked.origins,
      onRefusal: (error) => {
        this.#refusal = error;
      },
    });
  }

  async #loadClient(): Promise<ClientModule> {
    this.#client ??= await import('@modelcontextprotocol/client');
    return this.#client;
  }

  #providerReady(): Promise<OAuthClientProvider> {
    this.#provider ??= this.#makeProvider();
    return this.#provider;
  }

  async #makeProvider(): Promise<OAuthClientProvider> {
    const { checked, store, key, secrets } = this.#input;
    const hooks: LoginHooks = {
      secrets,
      newState: () => {
        const state = randomBytes(32).toString('base64url');
        this.#login.draftState(state);
        return state;
      },
      saveVerifier: (verifier) => this.#login.draftVerifier(verifier),
      verifier: () => this.#login.verifier(),
      onAuthorizationUrl: (url) => this.#login.draftUrl(url),
    };
    if (checked.options.provider) return wrapHostProvider(checked.options.provider, hooks);
    const machine =
      checked.grant === 'client_credentials'
        ? machineProvider(checked, await this.#loadClient())
        : undefined;
    return createStoreProvider(checked, store, key, hooks, machine);
  }

  /**
   * Keeps Muster's own errors; makes every other failure a sanitized auth error. A request
   * the guard refused during this step wins: discovery may have fallen back past it and
   * failed later for a reason that would hide the refusal.
   */
  #wrap(err: unknown): MusterError {
    const refusal = this.#refusal;
    this.#refusal = undefined;
    if (refusal && MusterError.isInstance(refusal)) return refusal;
    if (MusterError.isInstance(err)) return err;
    const found = findMuster(err);
    if (found) return found;
    const client = this.#client;
    const secrets = this.#input.secrets;
    if (
      client?.IssuerMismatchError.isInstance(err) ||
      client?.AuthorizationServerMismatchError.isInstance(err)
    ) {
      return authError(
        this.server,
        'issuer-mismatch',
        `Server '${this.server}': the authorization server's issuer does not match the one this login started with; the sign-in was refused.`,
        err,
      );
    }
    if (client?.OAuthError.isInstance(err)) {
      return authError(
        this.server,
        'token-request-failed',
        `Server '${this.server}': the authorization server refused a request (${sanitizeRemoteText(err.code, secrets)}${err.message ? `: ${sanitizeRemoteText(err.message, secrets)}` : ''}).`,
        err,
      );
    }
    const text = sanitizeRemoteText(
      (err as { message?: unknown } | null)?.message ?? String(err),
      secrets,
    );
    return authError(
      this.server,
      'token-request-failed',
      `Server '${this.server}': OAuth failed: ${text}`,
      err,
    );
  }
}

function findMuster(err: unknown): MusterError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 8 && e !== null && typeof e === 'object'; depth++) {
    if (MusterError.isInstance(e)) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
