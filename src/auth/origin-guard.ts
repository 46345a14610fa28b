import type { FetchLike } from '@modelcontextprotocol/client';
import { MusterError } from '../errors/index.js';
import { isSecureOrLoopback } from '../util/index.js';
import { authError } from './oauth-errors.js';

/** What {@link guardOrigins} needs. */
export interface OriginGuardOptions {
  readonly server: string;
  /** Every origin requests may go to: the MCP server's and `allowedOrigins`. */
  readonly origins: ReadonlySet<string>;
  /** Told of each request refused (origin, insecure URL, redirect) before it is thrown. */
  readonly onRefusal?: (error: Error) => void;
  /** Told of each 401 answer with the bearer token its request carried. */
  readonly onUnauthorizedResponse?: (response: Response, token: string | undefined) => void;
}

function urlOf(input: string | URL | Request): URL {
  if (input instanceof URL) return input;
  return new URL(typeof input === 'string' ? input : input.url);
}

/**
 * Wraps the fetch of an OAuth-protected server (MCP requests and OAuth requests alike):
 * a request to an origin outside `origins`, or to a URL that is neither HTTPS nor loopback,
 * fails with `MCP_AUTH_REQUIRED` (`origin-not-allowed` / `insecure-url`) before anything is
 * sent. A redirect refused by the inner fetch becomes `redirect-refused`. The error names
 * the origin (never a path or query: they may hold codes).
 */
export function guardOrigins(base: FetchLike, options: OriginGuardOptions): FetchLike {
  const { server, origins } = options;
  return async (input, init) => {
    const url = urlOf(input as string | URL | Request);
    const refuse = (error: Error): never => {
      options.onRefusal?.(error);
      throw error;
    };
    if (!isSecureOrLoopback(url)) {
      refuse(
        authError(
          server,
          'insecure-url',
          `Server '${server}': OAuth refused a request to ${url.origin}, which is neither https:// nor loopback.`,
        ),
      );
    }
    if (!origins.has(url.origin)) {
      refuse(
        authError(
          server,
          'origin-not-allowed',
          `Server '${server}': OAuth refused a request to ${url.origin}, which is not in mcp.oauth.${server}.allowedOrigins: add it there if you trust it.`,
        ),
      );
    }
    let response: Response;
    try {
      response = await base(input, init);
    } catch (err) {
      if (MusterError.isInstance(err) && err.details.reason === 'redirect') {
        refuse(
          authError(
            server,
            'redirect-refused',
            `Server '${server}': ${url.origin} answered an OAuth or MCP request with a redirect, which Muster refuses.`,
            err,
          ),
        );
      }
      throw err;
    }
    if (response.status === 401 && options.onUnauthorizedResponse) {
      const header = new Headers(init?.headers).get('authorization') ?? undefined;
      const token = header?.toLowerCase().startsWith('bearer ') ? header.slice(7) : undefined;
      options.onUnauthorizedResponse(response, token);
    }
    return response;
  };
}
