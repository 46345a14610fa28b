import type {
  OAuthClientProvider,
  StoredOAuthClientInformation,
} from '@modelcontextprotocol/client';
import type { CheckedOAuthOptions } from './oauth-config.js';

/** True when the space-separated `granted` scopes include every scope of `needed`. */
export function coversScope(granted: string | undefined, needed: string | undefined): boolean {
  if (!needed) return true;
  const have = new Set((granted ?? '').split(' ').filter(Boolean));
  return needed
    .split(' ')
    .filter(Boolean)
    .every((s) => have.has(s));
}

/**
 * A client Muster registered itself may only ask for the scope it registered with: when a
 * login needs more, the registration is dropped so the login registers again. Returns the
 * registration it dropped, for {@link restoreRegistration} if the wider login does not
 * finish (the stored refresh token still belongs to the old client).
 */
export async function widenRegistration(
  provider: OAuthClientProvider,
  checked: CheckedOAuthOptions,
  scope: string | undefined,
): Promise<StoredOAuthClientInformation | undefined> {
  const { options } = checked;
  if (options.provider || options.clientId !== undefined || !scope) return undefined;
  const registered = await provider.clientInformation();
  const have = (registered as { scope?: unknown } | undefined)?.scope;
  if (!registered || typeof have !== 'string' || coversScope(have, scope)) return undefined;
  await provider.invalidateCredentials?.('client');
  return registered;
}

/** Puts back a registration {@link widenRegistration} dropped. */
export async function restoreRegistration(
  provider: OAuthClientProvider,
  previous: StoredOAuthClientInformation | undefined,
): Promise<void> {
  if (previous) await provider.saveClientInformation?.(previous);
}

/**
 * The scope and resource metadata one server's `auth()` runs ask with: the host's `scope`
 * when given (it always wins), else the scopes servers challenged with, widened by step-ups.
 */
export class ScopeAsk {
  readonly #explicit: string | undefined;
  #scope: string | undefined;
  #resourceMetadataUrl: URL | undefined;

  constructor(explicit: string | undefined) {
    this.#explicit = explicit;
    this.#scope = explicit;
  }

  /** What the next `auth()` run asks with. */
  ask(): { readonly scope?: string; readonly resourceMetadataUrl?: URL } {
    return {
      ...(this.#scope === undefined ? {} : { scope: this.#scope }),
      ...(this.#resourceMetadataUrl === undefined
        ? {}
        : { resourceMetadataUrl: this.#resourceMetadataUrl }),
    };
  }

  /** Takes in a 401 challenge (`WWW-Authenticate`). */
  challenged(
    union: (...scopes: (string | undefined)[]) => string | undefined,
    scope: string | undefined,
    resourceMetadataUrl: URL | undefined,
  ): void {
    if (resourceMetadataUrl) this.#resourceMetadataUrl = resourceMetadataUrl;
    if (this.#explicit === undefined && scope !== undefined)
      this.#scope = union(this.#scope, scope);
  }

  /**
   * Widens the ask for a step-up to the union of what was asked, granted and challenged;
   * true when that is more than `granted` (so a refresh cannot give it: a new login must).
   */
  widen(
    client: {
      computeScopeUnion(...scopes: (string | undefined)[]): string | undefined;
      isStrictScopeSuperset(union: string | undefined, current: string | undefined): boolean;
    },
    granted: string | undefined,
    challenge: { readonly scope?: string; readonly resourceMetadataUrl?: URL },
  ): boolean {
    this.#scope = client.computeScopeUnion(this.#scope, granted, challenge.scope);
    if (challenge.resourceMetadataUrl) this.#resourceMetadataUrl = challenge.resourceMetadataUrl;
    return client.isStrictScopeSuperset(this.#scope, granted);
  }

  /** The scope asked for so far. */
  get scope(): string | undefined {
    return this.#scope;
  }
}
