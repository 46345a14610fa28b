import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';
import { MusterError } from '../errors/index.js';
import type { SecretRegistry } from '../util/index.js';
import { authError, sanitizeRemoteText } from './oauth-errors.js';
import { Login } from './oauth-login.js';
import type { McpAuthenticateResult } from './oauth-options.js';
import { AuthRunner } from './oauth-runner.js';
import { TokenRefresh } from './oauth-refresh.js';
import { ScopeAsk, coversScope, restoreRegistration, widenRegistration } from './oauth-scope.js';
import type { OAuthChallenge, OAuthSessionInput } from './oauth-session-types.js';
import { SharedLogin } from './oauth-shared-login.js';
import { Serial } from './serial.js';

/**
 * OAuth for one server (SPEC section 8): the transport's token source, one shared refresh for
 * every 401, logins in push and pull mode with single-use `state` and checked callbacks, scope
 * step-up, and logout. Every step that runs the official `auth()` runs alone ({@link Serial}),
 * so a refresh, a login and a logout never see each other's half-done state. A 401 never
 * logs anyone in: when no refresh helps it fails with `MCP_AUTH_REQUIRED`
 * (`login-required`), and the caller (the connector) decides.
 */
export class OAuthSession {
  readonly server: string;
  readonly #input: OAuthSessionInput;
  readonly #serial = new Serial();
  readonly #login: Login;
  readonly #runner: AuthRunner;
  readonly #refresh: TokenRefresh;
  #steppingUp: Promise<void> | undefined;
  readonly #scope: ScopeAsk;
  #wantsStepUp = false;
  #closed = false;
  /** Puts back the registration a wider login replaced, until that login succeeds. */
  #undoWiden: (() => void) | undefined;
  /** The waiting login as every process sharing the token store sees it. */
  readonly #shared: SharedLogin;

  /** What this session's credentials join: a principal's own registry, or the server's. */
  get secrets(): SecretRegistry {
    return this.#input.secrets;
  }

  constructor(input: OAuthSessionInput) {
    this.server = input.server;
    this.#input = input;
    this.#scope = new ScopeAsk(input.checked.options.scope);
    this.#login = new Login({
      server: input.server,
      checked: input.checked,
      secrets: input.secrets,
    });
    this.#runner = new AuthRunner(input, this.#login);
    this.#shared = new SharedLogin(input, this.#login, this.#runner);
    this.#refresh = new TokenRefresh({
      server: input.server,
      origins: input.checked.origins,
      runner: this.#runner,
      serial: this.#serial,
      scope: this.#scope,
      signInHint: () =>
        this.pushMode
          ? 'the next connect will ask for it'
          : `call agent.mcp.authenticate('${input.server}'${input.principal === undefined ? '' : ', { principal }'})`,
      assertOpen: () => this.#assertOpen(),
    });
  }

  /** True when logins are finished by the host's `authorize` (push mode). */
  get pushMode(): boolean {
    return this.#input.checked.options.authorize !== undefined;
  }

  /**
   * The issuer of the authorization server this session signs in with, when known: the
   * discovery stored with its tokens, else `expectedIssuer`; undefined when neither is there
   * (or the store cannot be read). Reads the token store; never signs in.
   */
  async knownIssuer(): Promise<string | undefined> {
    const expected = this.#input.checked.options.expectedIssuer;
    try {
      const discovery = (await this.#input.store.get(this.#input.key))?.discovery;
      return (
        discovery?.authorizationServerMetadata?.issuer ??
        discovery?.authorizationServerUrl ??
        expected
      );
    } catch {
      return expected;
    }
  }

  /** True when a login waits for `submitOAuthCallback()`. */
  get waiting(): boolean {
    return this.#login.pending;
  }

  /** The authorization URL of the waiting login, for `authenticate()` to hand out again. */
  get pendingUrl(): string | undefined {
    return this.#login.url;
  }

  /**
   * The authorization URL of this process's waiting login, while it is still the one the
   * token store keeps: when another process has used it or started a newer one, this
   * process's is forgotten (the next `authenticate()` sees the stored tokens, or starts
   * afresh) and `undefined` is returned.
   */
  waitingUrl(): Promise<string | undefined> {
    return this.#serial.run(() => this.#shared.waitingUrl());
  }

  /** True when a call asked for more scope than granted and a pull-mode login must widen it. */
  get wantsStepUp(): boolean {
    return this.#wantsStepUp;
  }

  /** The transport's fetch: origins checked, 401 answers remembered with their token. */
  guard(fetch: FetchLike): FetchLike {
    return this.#refresh.guard(fetch);
  }

  /** The `AuthProvider` of the transport: the stored token, and a shared refresh on 401. */
  authProvider(): AuthProvider {
    return this.#refresh.authProvider();
  }

  /**
   * Signs in: silently when a refresh or a machine grant suffices; else, in push mode, by the
   * host's `authorize` (resolving when tokens are saved), or, in pull mode, by returning the
   * URL the user must open. Any earlier login still waiting is cancelled. `wider` asks for a
   * fresh authorization with a new registration when the scope outgrew the old one.
   */
  authenticate(signal: AbortSignal, wider = false): Promise<McpAuthenticateResult> {
    return this.#serial.run(() => this.#authenticate(signal, wider));
  }

  /**
   * Finishes the waiting login with the callback URL: checked (destination, duplicates,
   * `state`, errors), the login consumed, then the code redeemed (with the `iss` check).
   */
  submitCallback(callbackUrl: string | URL): Promise<void> {
    return this.#serial.run(() => this.#redeem(callbackUrl));
  }

  /**
   * Widens the scope after `403 insufficient_scope`, when the host allowed step-up: one new
   * login (push mode) for the union of the scopes asked so far, granted and challenged,
   * shared by every call refused at the same time.
   *
   * @throws McpError `MCP_AUTH_REQUIRED` (`insufficient-scope`) when step-up is off, or in
   *   pull mode (the wider login then waits for `authenticate()`).
   */
  async stepUp(challenge: OAuthChallenge, signal: AbortSignal): Promise<void> {
    const insufficient = this.#insufficient(challenge);
    if (!this.#input.checked.options.stepUp) throw insufficient;
    while (this.#steppingUp) {
      await this.#steppingUp.catch(() => undefined);
      if (await this.#grants(challenge.scope)) return;
    }
    const run = this.#stepUp(challenge, signal, insufficient);
    this.#steppingUp = run;
    try {
      await run;
    } finally {
      if (this.#steppingUp === run) this.#steppingUp = undefined;
    }
  }

  /**
   * Forgets this server's local tokens (the store entry, or the host provider's tokens), after
   * any step in progress, so a code being redeemed cannot bring them back.
   *
   * @throws MusterError `INVALID_CONFIGURATION` for a host provider that cannot forget tokens.
   */
  logout(): Promise<void> {
    return this.#serial.run(async () => {
      this.#login.cancel();
      const host = this.#input.checked.options.provider;
      if (!host) {
        await this.#input.store.delete(this.#input.key);
      } else if (host.invalidateCredentials) {
        await host.invalidateCredentials('tokens');
      } else {
        throw new MusterError(
          'INVALID_CONFIGURATION',
          `Server '${this.server}': its auth provider has no invalidateCredentials(), so Muster cannot forget its tokens; sign out in the provider itself.`,
          { details: { server: this.server } },
        );
      }
      this.#runner.reset();
      this.#wantsStepUp = false;
    });
  }

  /** Ends the session: a waiting login is cancelled and no new one may start. */
  close(): void {
    this.#closed = true;
    this.#login.cancel();
  }

  async #authenticate(signal: AbortSignal, wider: boolean): Promise<McpAuthenticateResult> {
    this.#assertOpen();
    const { provider } = await this.#runner.ready();
    this.#login.cancel();
    const previous = wider
      ? await widenRegistration(provider, this.#input.checked, this.#scope.scope)
      : undefined;
    const restore = previous
      ? () => {
          if (this.#undoWiden === restore) this.#undoWiden = undefined;
          void restoreRegistration(provider, previous).catch(() => undefined);
        }
      : () => undefined;
    this.#undoWiden = previous ? restore : undefined;
    let result: 'AUTHORIZED' | 'REDIRECT';
    try {
      result = wider
        ? await this.#runner.run(this.#runner.oauthFetch(), this.#scope.ask(), {
            forceReauthorization: true,
          })
        : // may spend the refresh token: under the store's lock, unless another process
          // has refreshed or signed in meanwhile
          await this.#runner.refresh(
            this.#runner.oauthFetch(),
            this.#scope.ask(),
            await provider.tokens(),
          );
      this.#assertOpen();
      if (result === 'REDIRECT') this.#runner.checkAuthorizationUrl();
    } catch (err) {
      restore();
      throw err;
    }
    if (result === 'AUTHORIZED') {
      this.#wantsStepUp = false;
      return { requiresUserAction: false };
    }
    const url = this.#login.start(signal, restore);
    const authorize = this.#input.checked.options.authorize;
    if (!authorize) {
      await this.#shared.save(wider);
      return { authUrl: url, requiresUserAction: true };
    }
    try {
      await this.#redeem(await this.#login.push(authorize));
    } catch (err) {
      // a push login that failed does not stay waiting: the next connect starts a new one
      this.#login.cancel();
      restore();
      throw err;
    }
    return { requiresUserAction: false };
  }

  async #redeem(callbackUrl: string | URL): Promise<void> {
    this.#assertOpen();
    const pending = await this.#shared.take(callbackUrl);
    try {
      const result = await this.#runner.run(this.#runner.oauthFetch(), this.#scope.ask(), {
        authorizationCode: pending.callback.code,
        ...(pending.callback.iss === undefined ? {} : { iss: pending.callback.iss }),
      });
      if (result !== 'AUTHORIZED') {
        throw authError(
          this.server,
          'token-request-failed',
          `Server '${this.server}': the authorization code was not redeemed.`,
        );
      }
      this.#wantsStepUp = false;
      this.#undoWiden = undefined;
    } catch (err) {
      // the old registration goes back: the stored refresh token still belongs to it
      this.#undoWiden?.();
      throw err;
    } finally {
      pending.done();
    }
  }

  async #stepUp(
    challenge: OAuthChallenge,
    signal: AbortSignal,
    insufficient: Error,
  ): Promise<void> {
    const client = await this.#runner.client();
    const { provider } = await this.#runner.ready();
    const wider = this.#scope.widen(client, (await provider.tokens())?.scope, challenge);
    if (!this.pushMode && this.#input.checked.grant === 'authorization_code') {
      // pull mode: the wider login waits for the host's authenticate(), not for this call
      this.#wantsStepUp = wider;
      throw insufficient;
    }
    await this.authenticate(signal, wider);
  }

  #insufficient(challenge: OAuthChallenge): Error {
    const asked = challenge.scope
      ? ` (it asks for '${sanitizeRemoteText(challenge.scope, this.#input.secrets)}')`
      : '';
    const fix = this.#input.checked.options.stepUp
      ? `sign in again with authenticate('${this.server}')`
      : `set mcp.oauth.${this.server}.stepUp to allow a new sign-in with more scope`;
    return authError(
      this.server,
      'insufficient-scope',
      `Server '${this.server}' refused the request for lack of scope${asked}: ${fix}.`,
    );
  }

  async #grants(scope: string | undefined): Promise<boolean> {
    return coversScope((await (await this.#runner.ready()).provider.tokens())?.scope, scope);
  }

  #assertOpen(): void {
    if (this.#closed) {
      throw authError(
        this.server,
        'login-cancelled',
        `Server '${this.server}': the agent was closed, so no sign-in starts.`,
      );
    }
  }
}
