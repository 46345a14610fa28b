import type { PendingOAuthLogin, StoredOAuthState, TokenStore } from './token-store.js';

/**
 * The waiting sign-in of one namespace in its token store (SPEC 15.4): saved when a pull-mode
 * login starts, so that a callback submitted to any process sharing the store can finish it,
 * and taken (removed) by exactly one callback. Each step is one `update` under the store's
 * lock; what is read is never written back whole, so the tokens and registration another
 * process saves meanwhile stay.
 */
export class StoredLogin {
  readonly #store: TokenStore;
  readonly #key: () => string;

  constructor(store: TokenStore, key: () => string) {
    this.#store = store;
    this.#key = key;
  }

  /** The waiting sign-in, if any (expired or not: the caller decides). */
  async read(): Promise<PendingOAuthLogin | undefined> {
    return (await this.#store.get(this.#key()))?.pendingLogin;
  }

  /** Saves `login` as the namespace's waiting sign-in, replacing any older one. */
  async save(login: PendingOAuthLogin): Promise<void> {
    await this.#store.update(this.#key(), (current) => ({ ...current, pendingLogin: login }));
  }

  /**
   * Removes the waiting sign-in whose `state` is `state`. True when it was there, so this
   * caller (and no other, in any process) used it; false when it was taken, replaced or
   * removed before.
   */
  async take(state: string): Promise<boolean> {
    let taken = false;
    await this.#store.update(this.#key(), (current) => {
      if (current?.pendingLogin?.state !== state) return current;
      taken = true;
      return withoutPending(current);
    });
    return taken;
  }
}

/** `state` without its waiting sign-in; `undefined` (the key deleted) when nothing else is left. */
function withoutPending(state: StoredOAuthState): StoredOAuthState | undefined {
  const rest: Record<string, unknown> = { ...state };
  delete rest['pendingLogin'];
  return Object.keys(rest).length === 0 ? undefined : (rest as StoredOAuthState);
}
