import { checkCallback } from './oauth-callback.js';
import type { CheckedCallback } from './oauth-callback.js';
import { authError } from './oauth-errors.js';
import type { Login } from './oauth-login.js';
import { StoredLogin } from './oauth-pending-login.js';
import type { AuthRunner } from './oauth-runner.js';
import type { OAuthSessionInput } from './oauth-session-types.js';
import type { PendingOAuthLogin } from './token-store.js';

/** A login taken for its callback: the checked callback, its verifier kept until `done()`. */
export interface TakenLogin {
  readonly callback: CheckedCallback;
  done(): void;
}

/**
 * One server's waiting login as the processes sharing its token store see it (SPEC 15.4): a
 * pull-mode login this process starts is kept in the store, so a callback submitted to any of
 * them can finish it, and a callback finishes the stored login or this process's own. Push
 * mode, a host provider and machine grants keep nothing in the store: a callback then finishes
 * this process's login alone. The caller runs each step alone (its `Serial`).
 */
export class SharedLogin {
  readonly #input: OAuthSessionInput;
  readonly #login: Login;
  readonly #runner: AuthRunner;
  /** Where pull-mode logins wait in the token store; absent when they are not kept there. */
  readonly #stored: StoredLogin | undefined;
  /** The `state` of this process's waiting login when it was saved to the store. */
  #savedState: string | undefined;

  constructor(input: OAuthSessionInput, login: Login, runner: AuthRunner) {
    this.#input = input;
    this.#login = login;
    this.#runner = runner;
    const { options, grant } = input.checked;
    this.#stored =
      options.authorize === undefined &&
      options.provider === undefined &&
      grant === 'authorization_code'
        ? new StoredLogin(input.store, () => input.key)
        : undefined;
  }

  /**
   * The authorization URL of this process's waiting login, while it is still the one the
   * token store keeps: when another process has used it or started a newer one, this
   * process's is forgotten and `undefined` is returned.
   */
  async waitingUrl(): Promise<string | undefined> {
    const url = this.#login.url;
    const mine = this.#login.secrets?.state;
    if (url === undefined || !this.#stored || mine === undefined || mine !== this.#savedState)
      return url;
    if ((await this.#stored.read())?.state === mine) return url;
    this.#login.drop();
    this.#savedState = undefined;
    this.#runner.reset();
    return undefined;
  }

  /**
   * Keeps the pull-mode login just started in the token store (not a wider one: its
   * registration may be put back by this process alone), bounded by `timeoutMs`.
   */
  async save(wider: boolean): Promise<void> {
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
   * Takes the login a callback finishes: the one kept in the token store when it is this
   * process's own, when this process has none waiting, or when the callback carries its
   * `state`; else this process's waiting login (a wider one, or one a newer stored login
   * replaced).
   */
  async take(callbackUrl: string | URL): Promise<TakenLogin> {
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
  ): Promise<TakenLogin> {
    const { server } = this.#input;
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
    let taken: TakenLogin;
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
}

/** The `state` parameter of a callback URL, if it parses and has one (nothing else is read). */
function stateOf(callbackUrl: string | URL): string | undefined {
  try {
    return new URL(String(callbackUrl)).searchParams.get('state') ?? undefined;
  } catch {
    return undefined;
  }
}
