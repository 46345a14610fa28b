import { MusterError } from '../../errors/index.js';
import type { McpOptions, McpPrincipalAuthProvider } from '../contracts/config-types.js';
import type { ServerDeclaration } from './config-sources.js';

/**
 * How a server authenticates per principal (SPEC 15.4): `oauth`, each principal signed in with
 * `mcp.oauth[name]` under its own key; `provider`, the declaration's
 * `auth.provider(principal)`. Servers without one are shared by every principal.
 */
export type PrincipalMode =
  | { readonly kind: 'oauth' }
  | { readonly kind: 'provider'; readonly provider: McpPrincipalAuthProvider };

function invalid(server: string, message: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, {
    details: { server, field: 'perPrincipal' },
  });
}

/**
 * The per-principal mode of a declaration, checked against its `mcp.oauth` entry: `perPrincipal`
 * needs something that signs each principal in (an `mcp.oauth` entry whose tokens Muster keeps,
 * or an auth provider that is a function of the principal). Undefined for a shared server.
 *
 * @throws MusterError `INVALID_CONFIGURATION` (`details.field: 'perPrincipal'`) for
 *   `perPrincipal` on a server nothing signs in per principal, on an `mcp.oauth` entry with a
 *   host provider or the `client_credentials` grant, or a declaration's `perPrincipal` beside an
 *   `mcp.oauth` entry that lacks it.
 */
export function principalModeOf(
  d: ServerDeclaration,
  options: McpOptions,
): PrincipalMode | undefined {
  const name = d.name;
  const oauth = options.oauth?.[name];
  const config = d.config;
  const declared = config.type === 'http' && config.perPrincipal === true;
  if (oauth?.perPrincipal === true) {
    if (oauth.provider !== undefined)
      throw invalid(
        name,
        `mcp.oauth.${name}.perPrincipal cannot be used with a host provider, which keeps its own tokens (Muster cannot keep them per principal): drop the provider, or declare the server with perPrincipal: true and auth: { type: 'provider', provider: (principal) => ... }.`,
      );
    if (oauth.grant === 'client_credentials')
      throw invalid(
        name,
        `mcp.oauth.${name}.perPrincipal cannot be used with the client_credentials grant, whose token is the client's, not a user's: use authorization_code, or remove perPrincipal.`,
      );
    return { kind: 'oauth' };
  }
  if (!declared) return undefined;
  const provider =
    config.type === 'http' && config.auth?.type === 'provider' ? config.auth.provider : undefined;
  if (typeof provider === 'function')
    return { kind: 'provider', provider: provider as McpPrincipalAuthProvider };
  if (provider !== undefined)
    throw invalid(
      name,
      `Server '${name}' has perPrincipal: true, but its auth provider is one object that every principal would share: make auth.provider a function of the principal, (principal) => AuthProvider; or remove perPrincipal.`,
    );
  if (oauth !== undefined)
    throw invalid(
      name,
      `Server '${name}' has perPrincipal: true but is signed in with mcp.oauth: set mcp.oauth.${name}.perPrincipal: true instead, and remove perPrincipal from the declaration.`,
    );
  throw invalid(
    name,
    `Server '${name}' has perPrincipal: true, but nothing signs each principal in: add auth: { type: 'provider', provider: (principal) => ... } to the declaration, or an mcp.oauth.${name} entry with perPrincipal: true; or remove perPrincipal.`,
  );
}
