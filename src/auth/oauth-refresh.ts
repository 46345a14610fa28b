import type { AuthProvider, FetchLike } from '@modelcontextprotocol/client';
import { authError } from './oauth-errors.js';
import { withDeadline, withinDeadline } from './oauth-failure.js';
import { OAUTH_DEFAULTS } from './oauth-options.js';
import type { AuthRunner } from './oauth-runner.js';
import type { ScopeAsk } from './oauth-scope.js';
import { guardOrigins } from './origin-guard.js';
import type { Serial } from './serial.js';

/** What the transport passes to `onUnauthorized` (not exported by the client). */
type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/** What {@link TokenRefresh} works with, shared with its session. */
export interface TokenRefreshParts {
  readonly server: string;
  readonly origins: ReadonlySet<string>;
  readonly runner: AuthRunner;
  readonly serial: Serial;
  readonly scope: ScopeAsk;
  /** How a person signs in to this server (for the `login-required` message). */
  readonly signInHint: () => string;
  /** Throws when the session was closed. */
  readonly assertOpen: () => void;
}

/**
 * The transport's side of a server's OAuth: the current token before every request, and one
 * refresh for every 401 at once. The guard remembers which token each 401 answer carried, so
 * a 401 for a token already replaced just retries; the refresh holds the store's lock and
 * re-reads the store inside it (a process sharing it may have refreshed), is bounded (`OAUTH_DEFAULTS.refreshTimeoutMs`, each
 * request `requestTimeoutMs`), and never opens a login.
 */
export class TokenRefresh {
  readonly #parts: TokenRefreshParts;
  readonly #sentWith = new WeakMap<Response, string | undefined>();
  #refreshing: Promise<boolean> | undefined;

  constructor(parts: TokenRefreshParts) {
    this.#parts = parts;
  }

  /** The transport's fetch: origins checked, 401 answers remembered with their token. */
  guard(fetch: FetchLike): FetchLike {
    return guardOrigins(fetch, {
      server: this.#parts.server,
      origins: this.#parts.origins,
      onRefusal: (error) => this.#parts.runner.noteRefusal(error),
      onUnauthorizedResponse: (response, token) => this.#sentWith.set(response, token),
    });
  }

  /** The `AuthProvider` of the transport. */
  authProvider(): AuthProvider {
    return {
      token: async () => (await (await this.#parts.runner.ready()).provider.tokens())?.access_token,
      onUnauthorized: (ctx) => this.#onUnauthorized(ctx),
    };
  }

  async #onUnauthorized(ctx: UnauthorizedContext): Promise<void> {
    const { runner, server, serial, scope } = this.#parts;
    const { provider } = await runner.ready();
    const used = this.#sentWith.get(ctx.response);
    const current = (await provider.tokens())?.access_token;
    // another request refreshed the token since this one was sent: retry with the new one
    if (current !== undefined && used !== current) return;
    const client = await runner.client();
    const challenge = client.extractWWWAuthenticateParams(ctx.response);
    scope.challenged(client.computeScopeUnion, challenge.scope, challenge.resourceMetadataUrl);
    this.#refreshing ??= withinDeadline(
      serial.run(() => this.#silent(ctx.fetchFn, used)),
      OAUTH_DEFAULTS.refreshTimeoutMs,
      () =>
        authError(
          server,
          'token-request-failed',
          `Server '${server}': no new token within ${OAUTH_DEFAULTS.refreshTimeoutMs} ms; the request was not run.`,
        ),
    ).finally(() => {
      this.#refreshing = undefined;
    });
    if (await this.#refreshing) return;
    throw authError(
      server,
      'login-required',
      `Server '${server}' needs a sign-in: ${this.#parts.signInHint()}.`,
    );
  }

  /** A refresh (or machine grant) without any user step; false when a login is needed. */
  async #silent(fetchFn: FetchLike, used: string | undefined): Promise<boolean> {
    const { runner, scope, assertOpen } = this.#parts;
    assertOpen();
    const held = await (await runner.ready()).provider.tokens();
    // another process (sharing the store) or a login may have renewed the token meanwhile:
    // the refresh re-reads the store under its lock and sends nothing then
    const result = await runner.refresh(
      withDeadline(fetchFn, OAUTH_DEFAULTS.requestTimeoutMs),
      scope.ask(),
      held,
      used,
    );
    return result === 'AUTHORIZED';
  }
}
