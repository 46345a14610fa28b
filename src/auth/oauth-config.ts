import { MusterError } from '../errors/index.js';
import { isSecureOrLoopback } from '../util/index.js';
import { OAUTH_DEFAULTS } from './oauth-options.js';
import type { McpOAuthServerOptions } from './oauth-options.js';

/** An `mcp.oauth` entry after its checks, with the derived values the OAuth layer uses. */
export interface CheckedOAuthOptions {
  readonly options: McpOAuthServerOptions;
  /** The MCP server URL (the protected resource). */
  readonly serverUrl: URL;
  /** Every origin OAuth may contact: the MCP server's plus `allowedOrigins`. */
  readonly origins: ReadonlySet<string>;
  readonly grant: 'authorization_code' | 'client_credentials';
  readonly redirectUri?: URL;
  readonly timeoutMs: number;
}

/** What the OAuth checks need to know of the server declaration. */
export interface OAuthServerFacts {
  readonly type: string;
  readonly url?: string;
  /** True when the declaration sends its own `Authorization` (a header or `auth`). */
  readonly staticAuth: boolean;
}

function invalid(server: string, message: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, { details: { server } });
}

function parseUrl(server: string, field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(server, `mcp.oauth.${server}.${field} is not a URL: give an absolute URL`);
  }
  if (url.username || url.password || url.hash) {
    throw invalid(
      server,
      `mcp.oauth.${server}.${field} must not hold credentials or a fragment: remove them`,
    );
  }
  return url;
}

/**
 * Checks an `mcp.oauth` entry against its server's declaration, at configuration time:
 * - the server is an `http` server, and `serverUrl` equals its `url` exactly;
 * - the declaration has no static `Authorization` (header or `auth`);
 * - every allowed origin is a bare `https:` (or loopback `http:`) origin;
 * - `authorization_code` has a redirect URI (or a provider that knows one) on a secure or
 *   loopback URL; `client_credentials` has a client ID with a secret or a private key (or a
 *   provider);
 * - `timeoutMs` is within 1 ms to 600 s; `clientMetadataUrl` is HTTPS with a path.
 *
 * @throws MusterError `INVALID_CONFIGURATION`, naming the field to fix; never a secret.
 */
export function checkOAuthOptions(
  server: string,
  facts: OAuthServerFacts,
  options: McpOAuthServerOptions,
): CheckedOAuthOptions {
  const where = `mcp.oauth.${server}`;
  if (facts.type !== 'http' || facts.url === undefined) {
    throw invalid(
      server,
      `${where} is set, but '${server}' is not an http server: OAuth needs type 'http'`,
    );
  }
  if (options.serverUrl !== facts.url) {
    throw invalid(
      server,
      `${where}.serverUrl must equal the server's url exactly (tokens are bound to it): copy the url into serverUrl`,
    );
  }
  if (facts.staticAuth) {
    throw invalid(
      server,
      `Server '${server}' has both ${where} and a static Authorization (header or auth): keep only one`,
    );
  }
  const serverUrl = parseUrl(server, 'serverUrl', options.serverUrl);
  const origins = new Set([serverUrl.origin]);
  for (const given of options.allowedOrigins) {
    const url = parseUrl(server, 'allowedOrigins', given);
    if (!isSecureOrLoopback(url)) {
      throw invalid(
        server,
        `${where}.allowedOrigins holds a non-HTTPS origin: use https:// (http:// only on loopback)`,
      );
    }
    if (url.origin !== given.replace(/\/$/, '')) {
      throw invalid(
        server,
        `${where}.allowedOrigins must hold bare origins like https://auth.example.com, without a path or query`,
      );
    }
    origins.add(url.origin);
  }
  const timeoutMs = options.timeoutMs ?? OAUTH_DEFAULTS.timeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > OAUTH_DEFAULTS.maxTimeoutMs) {
    throw invalid(
      server,
      `${where}.timeoutMs must be an integer from 1 to ${OAUTH_DEFAULTS.maxTimeoutMs}`,
    );
  }
  if (options.clientMetadataUrl !== undefined) {
    const url = parseUrl(server, 'clientMetadataUrl', options.clientMetadataUrl);
    if (url.protocol !== 'https:' || url.pathname === '/') {
      throw invalid(server, `${where}.clientMetadataUrl must be an https:// URL with a path`);
    }
  }
  if (options.tokenEndpointAuthMethod !== undefined && options.clientSecret === undefined) {
    throw invalid(
      server,
      `${where}.tokenEndpointAuthMethod says how clientSecret is sent: set clientSecret (and clientId) too`,
    );
  }
  const grant = options.grant ?? 'authorization_code';
  if (grant === 'client_credentials') {
    if (options.provider === undefined) {
      if (options.clientId === undefined) {
        throw invalid(
          server,
          `${where} uses client_credentials: set clientId (and clientSecret or privateKeyJwk)`,
        );
      }
      if ((options.clientSecret === undefined) === (options.privateKeyJwk === undefined)) {
        throw invalid(
          server,
          `${where} uses client_credentials: set exactly one of clientSecret and privateKeyJwk`,
        );
      }
    }
    return { options, serverUrl, origins, grant, timeoutMs };
  }
  if (options.privateKeyJwk !== undefined) {
    throw invalid(server, `${where}.privateKeyJwk is only for grant 'client_credentials'`);
  }
  if (options.clientSecret !== undefined && options.clientId === undefined) {
    throw invalid(server, `${where}.clientSecret needs the clientId it belongs to`);
  }
  const given = options.redirectUri ?? options.provider?.redirectUrl?.toString();
  if (given === undefined) {
    // a host provider without a redirect URL runs a non-interactive grant of its own
    if (options.provider) return { options, serverUrl, origins, grant, timeoutMs };
    throw invalid(
      server,
      `${where} needs redirectUri: the callback URL registered for this client`,
    );
  }
  const redirectUri = parseUrl(server, 'redirectUri', given);
  if (!isSecureOrLoopback(redirectUri) && redirectUri.protocol.match(/^https?:$/)) {
    throw invalid(server, `${where}.redirectUri must be https:// (http:// only on loopback)`);
  }
  return { options, serverUrl, origins, grant, redirectUri, timeoutMs };
}
