import { MusterError } from '../../errors/index.js';
import { isLoopbackHost } from '../../util/index.js';

/**
 * Headers the transport or the HTTP stack owns. A server declaration may not set them:
 * they would break the protocol (session, version, content negotiation) or the framing.
 */
export const RESERVED_HEADER_NAMES: ReadonlySet<string> = new Set([
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'last-event-id',
  'content-type',
  'accept',
]);

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, tab and obs-text; no CR, LF, NUL or other controls. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function invalid(server: string, message: string): MusterError {
  return new MusterError('INVALID_CONFIGURATION', message, { details: { server } });
}

/**
 * Checks the URL of a remote (`http` or `sse`) server and returns it parsed.
 *
 * Accepts `https:`, and `http:` only on loopback: exactly `localhost`, `127.0.0.1` and `[::1]`
 * (SPEC 7.2, the rule OAuth applies too; `http://127.0.0.2/` is refused).
 * Refuses other schemes, credentials in the URL, any fragment (even an empty `#`) and
 * text that is not a URL. Error messages never echo credentials: a URL with userinfo is
 * not printed at all, and other URLs only as origin and path.
 *
 * @throws MusterError `INVALID_CONFIGURATION` with `details.server`.
 * @example
 * ```ts
 * const url = checkServerUrl('docs', 'https://mcp.example.com/mcp');
 * ```
 */
export function checkServerUrl(server: string, url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(
      server,
      `Server "${server}" has a url that is not a valid absolute URL: give a full https:// address`,
    );
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw invalid(
      server,
      `Server "${server}" has credentials in its url, which Muster refuses: remove them from the url and use "auth" or "headers" instead`,
    );
  }
  const shown = `${parsed.origin}${parsed.pathname}`;
  if (parsed.hash !== '' || url.includes('#')) {
    throw invalid(
      server,
      `Server "${server}" has a url with a fragment (${shown}#...): remove everything from "#" on`,
    );
  }
  if (parsed.protocol === 'https:') return parsed;
  if (parsed.protocol === 'http:') {
    if (isLoopbackHost(parsed.hostname)) return parsed;
    throw invalid(
      server,
      `Server "${server}" uses plain http on a non-loopback host (${shown}): use https://, or http:// only for localhost, 127.0.0.1 or [::1]`,
    );
  }
  throw invalid(
    server,
    `Server "${server}" has a url with the unsupported scheme "${parsed.protocol}": use https:// (or http:// on loopback)`,
  );
}

/**
 * Checks the static headers of a remote server. Refuses reserved protocol and hop-by-hop
 * headers (case-insensitively, see {@link RESERVED_HEADER_NAMES}), invalid names, and values
 * with CR, LF or other control characters. Messages name the header, never its value.
 *
 * @throws MusterError `INVALID_CONFIGURATION` with `details.server` and `details.header`.
 */
export function checkHeaders(
  server: string,
  headers: Readonly<Record<string, string>> | undefined,
): void {
  if (headers === undefined) return;
  for (const [name, value] of Object.entries(headers)) {
    const details = { server, header: name };
    if (!HEADER_NAME.test(name)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server "${server}" declares a header with an invalid name (${JSON.stringify(name)}): use letters, digits and - only`,
        { details },
      );
    }
    if (RESERVED_HEADER_NAMES.has(name.toLowerCase())) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server "${server}" declares the reserved header "${name}", which the transport manages itself: remove it from "headers"`,
        { details },
      );
    }
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new MusterError(
        'INVALID_CONFIGURATION',
        `Server "${server}" declares header "${name}" with an invalid value (line breaks or control characters): fix its value`,
        { details },
      );
    }
  }
}
