import type { FetchLike } from '@modelcontextprotocol/client';
import { McpError, MusterError } from '../../errors/index.js';
import { limitResponseBody } from './body-limit.js';
import type { LimitedResponse } from './body-limit.js';
import { SEND_MARK_HEADER } from './request-watch.js';
import type { ResponseBodyWatch } from './request-watch.js';

/** What {@link createGuardedFetch} needs. */
export interface GuardedFetchOptions {
  /** The server's registry name (for error messages). */
  readonly server: string;
  /** Bytes accepted per response, or per SSE event, before parsing. */
  readonly maxResponseBytes: number;
  /** Static headers added to requests for `origin` (already checked by `checkHeaders`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `Authorization: Bearer <token>` to `origin`. */
  readonly bearerToken?: string;
  /**
   * The only origin that `headers` and `bearerToken` are sent to, normally the server URL.
   * Requests elsewhere (an OAuth authorization server, say) get neither. Required when
   * either is given.
   */
  readonly origin?: string | URL;
  /** The fetch to wrap. Default: the global `fetch`. */
  readonly fetch?: FetchLike;
  /**
   * Told of every refusal (a redirect, an oversized response) with the request's method,
   * before the request or its body fails with that error. Must not throw.
   */
  readonly onRefusal?: (error: McpError, method: string) => void;
  /**
   * Where the response body of a request marked by a send (`settleSendWithResponseBody`) is
   * recorded. The mark is a private header, removed before the request leaves.
   */
  readonly watch?: ResponseBodyWatch;
}

/** True for a response that is, or stands for, a redirect. */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/** The method of a request, upper-cased. */
function methodOf(init: RequestInit | undefined): string {
  return (init?.method ?? 'GET').toUpperCase();
}

/**
 * Wraps `fetch` for one remote MCP server. Every request:
 * - is sent with `redirect: 'manual'`, and any 3xx answer (or an opaque redirect) fails
 *   with `McpError('MCP_CONNECTION_FAILED')`, so no redirect is ever followed;
 * - gets the configured headers and bearer token when it goes to `origin`, without
 *   replacing a header the client set itself (session, protocol version, provider token);
 * - has its response bounded before parsing by `maxResponseBytes` (see `limitResponseBody`):
 *   an oversized body fails with `McpError('MCP_OPERATION_FAILED')`. With Node's own `fetch`
 *   (no `fetch` option), a body whose declared length is within the limit and which is not
 *   compressed comes back as `fetch` gave it: Node's HTTP parser holds it to that length.
 *
 * Errors never contain header values or tokens.
 *
 * @throws MusterError `INVALID_CONFIGURATION` when headers or a token are given without `origin`.
 * @example
 * ```ts
 * const fetch = createGuardedFetch({ server: 'docs', maxResponseBytes: 8 << 20, origin: url });
 * const transport = new StreamableHTTPClientTransport(url, { fetch });
 * ```
 */
export function createGuardedFetch(options: GuardedFetchOptions): FetchLike {
  const { server, maxResponseBytes } = options;
  const extraHeaders = Object.entries(options.headers ?? {});
  const sendsCredentials = extraHeaders.length > 0 || options.bearerToken !== undefined;
  if (sendsCredentials && options.origin === undefined) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `Server "${server}": headers or a bearer token need the origin they may be sent to`,
      { details: { server } },
    );
  }
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes <= 0) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `mcp.maxResponseBytes must be a positive integer (got ${String(maxResponseBytes)})`,
      { details: { server } },
    );
  }
  const origin = options.origin === undefined ? undefined : new URL(options.origin).origin;
  const base = options.fetch ?? ((url, init) => fetch(url, init));
  const limit = { server, maxResponseBytes, lengthEnforced: options.fetch === undefined };

  return async (url, init) => {
    const headers = new Headers(init?.headers);
    const mark = headers.get(SEND_MARK_HEADER);
    if (mark !== null) headers.delete(SEND_MARK_HEADER);
    // the URL is parsed only when there is something to send to its origin
    if (sendsCredentials && new URL(url).origin === origin) {
      for (const [name, value] of extraHeaders) {
        if (!headers.has(name)) headers.set(name, value);
      }
      if (options.bearerToken !== undefined && !headers.has('authorization')) {
        headers.set('authorization', `Bearer ${options.bearerToken}`);
      }
    }
    const method = methodOf(init);
    const response = await base(url, { ...init, headers, redirect: 'manual' });
    if (isRedirect(response)) {
      await response.body?.cancel().catch(() => {});
      const error = new McpError(
        'MCP_CONNECTION_FAILED',
        `Server "${server}" answered with a redirect, which Muster refuses: point url at the final address`,
        { server, details: { server, status: response.status, reason: 'redirect' } },
      );
      options.onRefusal?.(error, method);
      throw error;
    }
    let limited: LimitedResponse;
    try {
      limited = limitResponseBody(response, limit);
    } catch (error) {
      if (error instanceof McpError) options.onRefusal?.(error, method);
      throw error;
    }
    const { done } = limited;
    if (done !== undefined) {
      if (mark !== null) options.watch?.track(mark, method, done);
      if (options.onRefusal !== undefined) {
        const report = options.onRefusal;
        done.catch((error: McpError) => report(error, method));
      }
    }
    return limited.response;
  };
}
