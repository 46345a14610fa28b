import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';
import { MusterError } from '../errors/index.js';
import { checkCallback } from './oauth-callback.js';
import { authError, sanitizeRemoteText } from './oauth-errors.js';
import { Login } from './oauth-login.js';
import type { CheckedCallback } from './oauth-callback.js';
import { StoredLogin } from './oauth-pending-login.js';
import type { PendingOAuthLogin } from './token-store.js';
import type { McpAuthenticateResult } from './oauth-options.js';
import { AuthRunner } from './oauth-runner.js';
import { TokenRefresh } from './oauth-refresh.js';
import { ScopeAsk, coversScope, restoreRegistration, widenRegistration } from './oauth-scope.js';
import type { OAuthChallenge, OAuthSessionInput } from './oauth-session-types.js';
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
  /**
   * Where pull-mode logins wait in the token store, for a callback in any process; absent
   * in push mode, for a host provider and for machine grants.
   */
  readonly #stored: StoredLogin | undefined;
  /** The `state` of this process's waiting login when it was saved to the store. */
  #savedState: string | undefined;

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
    const { options, grant } = input.checked;
    this.#stored =
      options.authorize === undefined &&
      options.provider === undefined &&
      grant === 'authorization_code'
        ? new StoredLogin(input.store, () => input.key)
        : undefined;
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
    return this.#serial.run(async () => {
      const url = this.#login.url;
      const mine = this.#login.secrets?.state;
      if (url === undefined || !this.#stored || mine === undefined || mine !== this.#savedState)
        return url;
      if ((await this.#stored.read())?.state === mine) return url;
      this.#login.drop();
      this.#savedState = undefined;
      this.#runner.reset();
      return undefined;
    });
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
      await this.#save(wider);
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

  /**
   * Keeps the pull-mode login just started in the token store (not a wider one: its
   * registration may be put back by this process alone), bounded by `timeoutMs`.
   */
  async #save(wider: boolean): Promise<void> {
    const secrets = this.#login.secrets;
    this.#savedState = undefined;
    if (!this.#stored || wider || !secrets) return;
    try {
      await this.#stored.save({
        ...secrets,
        expiresAt: Date.now() + this.#input.checked.timeoutMs,
      });
    } catch (err) {
      this.#login.cancel();
      throw err;
    }
    this.#savedState = secrets.state;
  }

  /**
   * The login a callback finishes: the one kept in the token store when it is this
   * process's own, when this process has none waiting, or when the callback carries its
   * `state`; else this process's waiting login (a wider one, or one a newer stored login
   * replaced).
   */
  async #take(
    callbackUrl: string | URL,
  ): Promise<{ readonly callback: CheckedCallback; done(): void }> {
    const check: Parameters<Login['take']>[0] = (expected) => checkCallback(callbackUrl, expected);
    const stored = this.#stored ? await this.#stored.read() : undefined;
    const mine = this.#login.secrets?.state;
    if (
      this.#stored &&
      stored !== undefined &&
      (mine === undefined || mine === stored.state || stateOf(callbackUrl) === stored.state)
    ) {
      return this.#takeStored(this.#stored, stored, check);
    }
    return this.#login.take(check);
  }

  async #takeStored(
    where: StoredLogin,
    stored: PendingOAuthLogin,
    check: Parameters<Login['take']>[0],
  ): Promise<{ readonly callback: CheckedCallback; done(): void }> {
    const { server } = this;
    const ownLogin = (): void => {
      if (this.#login.secrets?.state === stored.state) this.#login.drop();
    };
    if (!(stored.expiresAt > Date.now())) {
      await where.take(stored.state);
      ownLogin();
      throw authError(
        server,
        'login-timeout',
        `Server '${server}': the sign-in did not finish within ${this.#input.checked.timeoutMs} ms; start it again.`,
      );
    }
    let spent = false;
    let taken: { readonly callback: CheckedCallback; done(): void };
    try {
      taken = this.#login.takeStored(stored, check, () => {
        spent = true;
      });
    } catch (err) {
      // the right state with an error answer (or no code) spends the login, in every process
      if (spent) {
        await where.take(stored.state).catch(() => undefined);
        ownLogin();
      }
      throw err;
    }
    // single use across processes: only the caller that removes it redeems the code
    if (!(await where.take(stored.state))) {
      taken.done();
      throw authError(
        server,
        'no-login',
        `Server '${server}': this sign-in was already finished or replaced (by this or another process); start it again with agent.mcp.authenticate('${server}').`,
      );
    }
    this.#savedState = undefined;
    // another process registered the client and found the authorization server: read them
    await (await this.#runner.ready()).reload();
    return taken;
  }

  async #redeem(callbackUrl: string | URL): Promise<void> {
    this.#assertOpen();
    const pending = await this.#take(callbackUrl);
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

/** The `state` parameter of a callback URL, if it parses and has one (nothing else is read). */
function stateOf(callbackUrl: string | URL): string | undefined {
  try {
    return new URL(String(callbackUrl)).searchParams.get('state') ?? undefined;
  } catch {
    return undefined;
  }
}
