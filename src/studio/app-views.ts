import { randomBytes } from 'node:crypto';

/** One MCP Apps view waiting for its iframe: the HTML and the policy it is served under. */
export interface PendingAppView {
  readonly html: string;
  readonly csp: string;
}

/** How long a view URL stays valid, and how many may wait at once. */
export interface AppViewStoreOptions {
  /** Default 60 000 ms. */
  readonly ttlMs?: number;
  /** Default 32; the oldest is dropped past it. */
  readonly maxPending?: number;
  /** The clock (for tests of expiry). Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * The views handed out by `POST .../app` and not yet loaded: each under a random one-time
 * nonce (32 random bytes, base64url) that is the only credential of `GET /apps/view/<nonce>`.
 * Taking a view removes it; an expired one is gone. Nothing outlives the process.
 */
export class AppViewStore {
  readonly #views = new Map<string, PendingAppView & { readonly expires: number }>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: AppViewStoreOptions = {}) {
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#max = options.maxPending ?? 32;
    this.#now = options.now ?? Date.now;
  }

  /** Stores a view and returns its nonce. */
  put(view: PendingAppView): string {
    this.#sweep();
    while (this.#views.size >= this.#max) {
      const oldest = this.#views.keys().next().value;
      if (oldest === undefined) break;
      this.#views.delete(oldest);
    }
    const nonce = randomBytes(32).toString('base64url');
    this.#views.set(nonce, { ...view, expires: this.#now() + this.#ttlMs });
    return nonce;
  }

  /** The view of a nonce, once: later calls (and calls after expiry) get `undefined`. */
  take(nonce: string): PendingAppView | undefined {
    const view = this.#views.get(nonce);
    if (!view) return undefined;
    this.#views.delete(nonce);
    if (view.expires <= this.#now()) return undefined;
    return { html: view.html, csp: view.csp };
  }

  /** How many views wait (expired ones not counted). */
  get size(): number {
    this.#sweep();
    return this.#views.size;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [nonce, view] of this.#views) if (view.expires <= now) this.#views.delete(nonce);
  }
}
