import type { OAuthSession } from './oauth-session.js';
import { checkPrincipal } from './principal.js';

/** One principal's session and how many operations use it now. */
interface Held {
  readonly session: OAuthSession;
  users: number;
}

/**
 * The OAuth sessions of one server's principals (SPEC 15.4), for the sign-in operations that
 * name one (`authenticate`, `submitOAuthCallback`, `logout` with `{ principal }`). Each is an
 * {@link OAuthSession} over the principal's own namespace of the token store, so its tokens,
 * its waiting login (`state`, PKCE verifier) and its logout never touch another principal's
 * or the local user's. A session is made on first use and forgotten once no operation uses it
 * and no login of it waits, so only principals in the middle of a sign-in are held.
 */
export class PrincipalSessions {
  readonly #make: (principal: string) => OAuthSession;
  readonly #held = new Map<string, Held>();
  #closed = false;

  constructor(make: (principal: string) => OAuthSession) {
    this.#make = make;
  }

  /** How many principals' sessions are held now (in use, or with a login waiting). */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Runs `work` with the session of `principal` (checked first: nothing runs for a bad id).
   *
   * @throws MusterError `INVALID_CONFIGURATION` for a principal that is not 1 to 256
   *   characters without control characters, or a server whose sign-in cannot be kept per
   *   principal.
   */
  async use<T>(principal: string, work: (session: OAuthSession) => Promise<T>): Promise<T> {
    const { session, release } = this.acquire(principal);
    try {
      return await work(session);
    } finally {
      release();
    }
  }

  /**
   * Holds the session of `principal` until `release` is called (a principal's open connection
   * holds it for as long as it is open, so its sign-in operations and its transport share one
   * session: a logout reaches the tokens the connection uses). `release` is idempotent.
   *
   * @throws MusterError `INVALID_CONFIGURATION` as {@link use}.
   */
  acquire(principal: string): { readonly session: OAuthSession; release(): void } {
    checkPrincipal(principal);
    this.#prune();
    let held = this.#held.get(principal);
    if (!held) {
      held = { session: this.#make(principal), users: 0 };
      // a closed owner makes no login: the session fails its work as closed
      if (this.#closed) held.session.close();
      else this.#held.set(principal, held);
    }
    const taken = held;
    taken.users += 1;
    let released = false;
    return {
      session: taken.session,
      release: () => {
        if (released) return;
        released = true;
        taken.users -= 1;
        this.#prune();
      },
    };
  }

  /** Ends every held session: waiting logins are cancelled and no new one starts. */
  close(): void {
    this.#closed = true;
    for (const { session } of this.#held.values()) session.close();
    this.#held.clear();
  }

  /** Forgets the sessions no operation uses and no login waits on (a timed-out login too). */
  #prune(): void {
    for (const [principal, held] of this.#held) {
      if (held.users > 0 || held.session.waiting) continue;
      held.session.close();
      this.#held.delete(principal);
    }
  }
}
