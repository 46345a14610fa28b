import type { AuthProvider, OAuthClientProvider } from '@modelcontextprotocol/client';
import { MusterError } from '../../errors/index.js';
import type { McpHttpServerConfig, McpSseServerConfig } from '../contracts/config-types.js';
import { checkHeaders, checkServerUrl } from './url-policy.js';

/** A remote declaration after its checks: the parsed URL and how it authenticates. */
export interface CheckedRemoteConfig {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** A static token, sent as `Authorization: Bearer` to the server's origin only. */
  readonly bearerToken?: string;
  /** An official `AuthProvider` or `OAuthClientProvider`, handed to the client. */
  readonly authProvider?: AuthProvider | OAuthClientProvider;
}

/** Visible ASCII without spaces or controls: what a bearer token may hold (RFC 6750 b64token and more). */
const TOKEN = /^[\x21-\x7e]+$/;

function invalid(server: string, message: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, { details: { server } });
}

/** True for an object shaped like an official `AuthProvider` or `OAuthClientProvider`. */
function isProvider(value: unknown): value is AuthProvider | OAuthClientProvider {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  const oauth = typeof p.tokens === 'function' && typeof p.clientInformation === 'function';
  return oauth || typeof p.token === 'function';
}

/**
 * Runs every check of a remote (`http` or `sse`) declaration at configuration time, so a
 * bad declaration fails when the agent is constructed, not when it connects: the URL
 * ({@link checkServerUrl}), the headers ({@link checkHeaders}), and the authentication:
 * `auth` together with an `Authorization` header is refused, a bearer token must be one
 * line of visible characters, and a provider must look like an official one. Secrets are
 * never printed.
 *
 * @throws MusterError `INVALID_CONFIGURATION` with `details.server`.
 */
export function validateRemoteConfig(
  server: string,
  config: McpHttpServerConfig | McpSseServerConfig,
): CheckedRemoteConfig {
  const url = checkServerUrl(server, config.url);
  const headers = { ...(config.headers ?? {}) };
  checkHeaders(server, headers);
  const auth = config.type === 'http' ? config.auth : undefined;
  if (auth === undefined) return { url, headers };
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'authorization')) {
    throw invalid(
      server,
      `Server "${server}" has both "auth" and an Authorization header: keep only one of them`,
    );
  }
  if (auth.type === 'bearer') {
    if (typeof auth.token !== 'string' || !TOKEN.test(auth.token)) {
      throw invalid(
        server,
        `Server "${server}" has a bearer token that is empty or holds spaces, line breaks or control characters: fix auth.token`,
      );
    }
    return { url, headers, bearerToken: auth.token };
  }
  if (auth.type === 'provider') {
    if (typeof auth.provider === 'function') {
      // a provider per principal is called for each connection (the server's connections
      // resolve it before building their transport): nothing to hand the client here
      if (config.type === 'http' && config.perPrincipal === true) return { url, headers };
      throw invalid(
        server,
        `Server "${server}" has a function as its auth provider, which only a server declared with perPrincipal: true takes: add perPrincipal: true, or pass an AuthProvider object`,
      );
    }
    if (!isProvider(auth.provider)) {
      throw invalid(
        server,
        `Server "${server}" has an auth provider that is neither an AuthProvider (token()) nor an OAuthClientProvider (tokens(), clientInformation())`,
      );
    }
    return { url, headers, authProvider: auth.provider };
  }
  throw invalid(server, `Server "${server}" has an unknown auth type: use "bearer" or "provider"`);
}
