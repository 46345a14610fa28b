import type * as ClientExports from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { CheckedOAuthOptions } from './oauth-config.js';

type ClientModule = typeof ClientExports;

/**
 * The official machine-to-machine provider for a `client_credentials` entry: the
 * `ClientCredentialsProvider` with a secret, or the `PrivateKeyJwtProvider` with a private
 * key (its algorithm from the JWK, `ES256` by default). Muster keeps the tokens; this
 * provider only shapes the token request and its client authentication.
 */
export function machineProvider(
  checked: CheckedOAuthOptions,
  client: ClientModule,
): OAuthClientProvider {
  const { options } = checked;
  const common = {
    clientId: options.clientId!,
    clientName: 'Muster',
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    ...(options.expectedIssuer === undefined ? {} : { expectedIssuer: options.expectedIssuer }),
  };
  if (options.privateKeyJwk !== undefined) {
    const jwk = options.privateKeyJwk;
    return new client.PrivateKeyJwtProvider({
      ...common,
      privateKey: { ...jwk },
      algorithm: typeof jwk.alg === 'string' ? jwk.alg : jwk.kty === 'RSA' ? 'RS256' : 'ES256',
    });
  }
  return new client.ClientCredentialsProvider({ ...common, clientSecret: options.clientSecret! });
}
