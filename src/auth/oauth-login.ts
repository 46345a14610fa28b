import type { SecretRegistry } from '../util/index.js';
import type { CallbackExpectation, CheckedCallback } from './oauth-callback.js';
import type { CheckedOAuthOptions } from './oauth-config.js';
import { authError } from './oauth-errors.js';

/** The parts of an authorization request, gathered while the official `auth()` makes it. */
interface Draft {
  state?: string;
  verifier?: string;
  url?: URL;
}

/** A login waiting for its callback. */
interface Pending {
  readonly state: string;
  readonly verifier: string;
  readonly url: URL;
  readonly controller: AbortController;
  readonly timer: ReturnType<typeof setTimeout>;
  readonly unlink: () => void;
  /** Told when the login ends without its callback being redeemed (timeout, cancel, error). */
  readonly onAbandon?: () => void;
}

/** What {@link Login} needs. */
export interface LoginInput {
  readonly server: string;
  readonly checked: CheckedOAuthOptions;
  readonly secrets: SecretRegistry;
}

/**
 * The login of one server: at most one waits at a time, with its single-use `state`, its PKCE
 * verifier (in memory only) and its deadline (`timeoutMs`). A login that times out or is
 * cancelled is forgotten at once, so a late callback cannot finish it.
 */
export class Login {
  readonly #input: LoginInput;
  #draft: Draft | undefined;
  #ready: Draft | undefined;
  #pending: Pending | undefined;
  #exchanging: string | undefined;

  constructor(input: LoginInput) {
    this.#input = input;
  }

  /** True while a login waits for its callback. */
  get pending(): boolean {
    return this.#pending !== undefined;
  }

  /** The authorization URL of the waiting login (for the host only; never logged). */
  get url(): string | undefined {
    return this.#pending?.url.href;
  }

  /** The `state` and PKCE verifier of the waiting login, to keep in the token store. */
  get secrets(): { readonly state: string; readonly verifier: string } | undefined {
    const pending = this.#pending;
    return pending && { state: pending.state, verifier: pending.verifier };
  }

  /** The authorization URL of the last complete request, before it becomes a login. */
  readyUrl(): URL | undefined {
    return this.#ready?.url;
  }

  /** Forgets the last complete request (it was refused before becoming a login). */
  dropReady(): void {
    this.#ready = undefined;
  }

  /** Starts gathering an authorization request (one `auth()` call). */
  beginDraft(): Draft {
    const draft: Draft = {};
    this.#draft = draft;
    return draft;
  }

  /** Ends gathering; a complete request becomes the one {@link start} uses. */
  endDraft(draft: Draft): void {
    if (this.#draft === draft) this.#draft = undefined;
    if (draft.state && draft.verifier && draft.url) this.#ready = draft;
  }

  /** Records the `state` of the request being gathered (kept secret from logs). */
  draftState(state: string): void {
    this.#input.secrets.add(state);
    if (this.#draft) this.#draft.state = state;
  }

  /** Records the PKCE verifier of the request being gathered (kept secret from logs). */
  draftVerifier(verifier: string): void {
    this.#input.secrets.add(verifier);
    if (this.#draft) this.#draft.verifier = verifier;
  }

  /** Records the authorization URL of the request being gathered (kept secret from logs). */
  draftUrl(url: URL): void {
    this.#input.secrets.add(url.href, url.search);
    if (this.#draft) this.#draft.url = url;
  }

  /**
   * Makes the last complete request the waiting login, with its deadline; `signal` cancels it.
   * Returns the authorization URL.
   */
  start(signal: AbortSignal, onAbandon?: () => void): string {
    const draft = this.#ready;
    this.#ready = undefined;
    const { server, checked } = this.#input;
    if (!draft?.state || !draft.verifier || !draft.url) {
      throw authError(
        server,
        'token-request-failed',
        `Server '${server}': no authorization request was made; try again.`,
      );
    }
    this.cancel();
    const controller = new AbortController();
    const timer = setTimeout(
      () =>
        this.#end(
          pending,
          authError(
            server,
            'login-timeout',
            `Server '${server}': the sign-in did not finish within ${checked.timeoutMs} ms; start it again.`,
          ),
        ),
      checked.timeoutMs,
    );
    timer.unref?.();
    const onAbort = (): void => this.#end(pending, cancelled(server));
    signal.addEventListener('abort', onAbort, { once: true });
    const pending: Pending = {
      state: draft.state,
      verifier: draft.verifier,
      url: draft.url,
      controller,
      timer,
      unlink: () => signal.removeEventListener('abort', onAbort),
      ...(onAbandon ? { onAbandon } : {}),
    };
    this.#pending = pending;
    if (signal.aborted) {
      this.#end(pending, cancelled(server));
      throw cancelled(server);
    }
    return draft.url.href;
  }

  /**
   * Push mode: hands the URL to the host's `authorize` and resolves with its callback URL, or
   * rejects when the login times out or is cancelled (whatever `authorize` does later).
   */
  push(
    authorize: (url: string, options: { signal: AbortSignal }) => Promise<string | URL>,
  ): Promise<string | URL> {
    const pending = this.#pending;
    const { server } = this.#input;
    if (!pending) return Promise.reject(cancelled(server));
    const { signal } = pending.controller;
    return new Promise<string | URL>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      let answer: Promise<string | URL>;
      try {
        answer = Promise.resolve(authorize(pending.url.href, { signal }));
      } catch (err) {
        answer = Promise.reject(err);
      }
      answer.then(
        (url) => {
          signal.removeEventListener('abort', onAbort);
          if (signal.aborted) reject(signal.reason);
          else resolve(url);
        },
        () => {
          signal.removeEventListener('abort', onAbort);
          // the host's error is not kept: it may quote the authorization URL
          const error = authError(
            server,
            'login-cancelled',
            `Server '${server}': the host's authorize() failed, so the sign-in was cancelled.`,
          );
          this.#end(pending, error);
          reject(signal.aborted ? signal.reason : error);
        },
      );
    });
  }

  /**
   * Takes the waiting login for its callback: `check` runs first (a refused callback leaves
   * the login waiting), then the login is consumed, its verifier kept until `done()`.
   */
  take(check: (expected: CallbackExpectation) => CheckedCallback): {
    readonly callback: CheckedCallback;
    done(): void;
  } {
    const pending = this.#pending;
    const { server } = this.#input;
    if (!pending) {
      throw authError(
        server,
        'no-login',
        `Server '${server}': no sign-in is waiting for a callback (it finished, timed out or was cancelled); start it again with agent.mcp.authenticate('${server}').`,
      );
    }
    // the right state with an error answer (or no code) ends this login: its state is spent
    const callback = this.#checked(pending.state, check, (err) => this.#end(pending, err));
    this.#finish(pending);
    this.#exchanging = pending.verifier;
    return {
      callback,
      done: () => {
        if (this.#exchanging === pending.verifier) this.#exchanging = undefined;
      },
    };
  }

  /**
   * Checks a callback against `state` (this sign-in's redirect URI); `spent` is told when the
   * right state came with an error answer (or no code), which spends it.
   */
  #checked(
    state: string,
    check: (expected: CallbackExpectation) => CheckedCallback,
    spent: (err: Error) => void,
  ): CheckedCallback {
    const { server, checked, secrets } = this.#input;
    if (!checked.redirectUri) {
      throw authError(
        server,
        'invalid-callback',
        `Server '${server}': this sign-in has no redirect URI, so it takes no callback.`,
      );
    }
    let stateMatched = false;
    try {
      return check({
        server,
        redirectUri: checked.redirectUri,
        state,
        secrets,
        onStateMatched: () => {
          stateMatched = true;
        },
      });
    } catch (err) {
      if (stateMatched) spent(err as Error);
      throw err;
    }
  }

  /**
   * Takes a login another process (or this one, before) started and kept in the token store,
   * for its callback: `check` runs against its `state` (a refused callback leaves it waiting;
   * `onSpent` is told when the right state came with an error answer, which spends it), then
   * its verifier is kept for the code's redemption until `done()`. A waiting login of this
   * process with the same `state` ends with it.
   */
  takeStored(
    stored: { readonly state: string; readonly verifier: string },
    check: (expected: CallbackExpectation) => CheckedCallback,
    onSpent: () => void,
  ): { readonly callback: CheckedCallback; done(): void } {
    this.#input.secrets.add(stored.state, stored.verifier);
    const callback = this.#checked(stored.state, check, () => onSpent());
    if (this.#pending?.state === stored.state) this.#finish(this.#pending);
    this.#exchanging = stored.verifier;
    return {
      callback,
      done: () => {
        if (this.#exchanging === stored.verifier) this.#exchanging = undefined;
      },
    };
  }

  /**
   * Forgets the waiting login without abandoning it: another process used or replaced it in
   * the token store, so nothing this one registered for it is undone.
   */
  drop(): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#finish(pending);
    pending.controller.abort(cancelled(this.#input.server));
  }

  /** The verifier of the code being redeemed. */
  verifier(): string {
    if (this.#exchanging === undefined) {
      const { server } = this.#input;
      throw authError(
        server,
        'no-login',
        `Server '${server}': no authorization code is being redeemed.`,
      );
    }
    return this.#exchanging;
  }

  /** Cancels the waiting login, if any. */
  cancel(): void {
    if (this.#pending) this.#end(this.#pending, cancelled(this.#input.server));
  }

  #end(pending: Pending, reason: Error): void {
    if (this.#pending !== pending) return;
    this.#finish(pending);
    pending.controller.abort(reason);
    pending.onAbandon?.();
  }

  #finish(pending: Pending): void {
    if (this.#pending === pending) this.#pending = undefined;
    clearTimeout(pending.timer);
    pending.unlink();
  }
}

function cancelled(server: string): Error {
  return authError(server, 'login-cancelled', `Server '${server}': the sign-in was cancelled.`);
}
