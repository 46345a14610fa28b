import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { errorBody } from './error-response.js';

/**
 * The cookie the token is exchanged for: `muster_studio_<port>`. Browsers scope cookies by
 * host, not port, so a name per port keeps two studios on one machine signed in side by side.
 */
export function studioCookieName(port: number): string {
  return `muster_studio_${port}`;
}

/** The CSP of every response that does not set its own (the MCP Apps view route does). */
export const STUDIO_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'; frame-src 'self'";

/** Routes reached without the cookie (each authenticates otherwise); the Host check still applies. */
const NO_COOKIE: readonly RegExp[] = [/^\/oauth\/callback$/, /^\/apps\/view\/[^/]+$/];

/** A new random studio token (URL-safe, 256 bits). */
export function newStudioToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The studio's request checks (SPEC 12a): the `Host` must be the studio's loopback address (a
 * DNS-rebinding page sends its own name), an `Origin` when present must be the studio's, so
 * must `Sec-Fetch-Site` (a load started by another site or port is refused), a GET
 * with `?token=` exchanges the right token for the cookie, every other request needs that
 * cookie, and a request that changes something (any method but GET and HEAD) needs an
 * `Origin` and a JSON body. Refusals are 403 `STUDIO_FORBIDDEN`. The token itself never
 * appears in a response: the cookie holds a separate random value.
 */
export class StudioSecurity {
  readonly #token: Buffer;
  readonly #hosts: ReadonlySet<string>;
  readonly #cookies = new Set<string>();
  readonly #cookieName: string;

  constructor(port: number, token: string) {
    this.#token = digest(token);
    this.#cookieName = studioCookieName(port);
    this.#hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
  }

  /** The middleware that adds the response headers (CSP, nosniff…); mount it first. */
  headers(): MiddlewareHandler {
    return async (c, next) => {
      await next();
      const headers = c.res.headers;
      if (!headers.has('Content-Security-Policy'))
        headers.set('Content-Security-Policy', STUDIO_CSP);
      headers.set('X-Content-Type-Options', 'nosniff');
      headers.set('Referrer-Policy', 'no-referrer');
      if (c.req.path.startsWith('/api/') || c.req.path === '/api')
        headers.set('Cache-Control', 'no-store');
      // no CORS, ever: nothing may be read from another origin
      for (const name of [...headers.keys()])
        if (name.toLowerCase().startsWith('access-control-')) headers.delete(name);
    };
  }

  /** The middleware that refuses what the checks do not let through; mount it after {@link headers}. */
  guard(): MiddlewareHandler {
    return async (c, next) => {
      const host = c.req.header('host') ?? '';
      if (!this.#hosts.has(host.toLowerCase()))
        return forbid(
          c,
          "The Host header is not the studio's loopback address: open the URL muster studio printed.",
        );
      const origin = c.req.header('origin');
      if (origin !== undefined && origin !== `http://${host.toLowerCase()}`)
        return forbid(c, 'Requests from another origin are refused.');
      const method = c.req.method;
      const safe = method === 'GET' || method === 'HEAD';
      if (safe && NO_COOKIE.some((r) => r.test(c.req.path))) return next();
      // a page of another port of 127.0.0.1 is the same site: its cookie-carrying loads
      // (img, script, no-cors fetch) send no Origin, but browsers mark them here
      const site = c.req.header('sec-fetch-site');
      const foreign = site === 'cross-site' || site === 'same-site';
      const token = safe ? c.req.query('token') : undefined;
      // the token itself authenticates a page load that carries it, wherever it was started
      // (`--open` starts it from a local file, which browsers call cross-site)
      if (token !== undefined && (!foreign || isTopLevelLoad(c)))
        return this.#exchange(c, token, foreign);
      if (foreign)
        return forbid(c, 'Requests from other sites are refused: open the studio URL directly.');
      const cookie = getCookie(c, this.#cookieName);
      if (cookie === undefined || !this.#cookies.has(cookie))
        return forbid(
          c,
          'Not signed in to the studio: open the URL muster studio printed (it carries the token).',
        );
      if (!safe) {
        if (origin === undefined)
          return forbid(c, `A ${method} request needs an Origin header (the studio's own).`);
        const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== 'application/json')
          return forbid(c, `A ${method} request needs Content-Type: application/json.`);
      }
      return next();
    };
  }

  /**
   * The right token sets the cookie and redirects to the same path without the token. The
   * path's leading slashes are collapsed to one: `//evil.example/` would be a
   * protocol-relative Location, a redirect to another site.
   */
  #exchange(c: Context, token: string, foreign: boolean): Response {
    if (!timingSafeEqual(digest(token), this.#token))
      return forbid(c, 'Wrong studio token: open the URL muster studio printed last.');
    const value = randomBytes(32).toString('base64url');
    this.#cookies.add(value);
    const url = new URL(c.req.url);
    url.searchParams.delete('token');
    const rest = url.searchParams.toString();
    c.header('Set-Cookie', `${this.#cookieName}=${value}; HttpOnly; SameSite=Strict; Path=/`);
    const target = `${url.pathname.replace(/^[/\\]+/, '/')}${rest === '' ? '' : `?${rest}`}`;
    // a redirect would go on with the load another site started, and a SameSite=Strict
    // cookie is not sent on that: a page of the studio's own moves on instead (same-origin)
    if (foreign) return c.html(movingOnPage(target));
    return c.redirect(target, 303);
  }
}

/** A top-level page load (not a fetch, image or frame). */
function isTopLevelLoad(c: Context): boolean {
  return (
    c.req.method === 'GET' &&
    c.req.header('sec-fetch-mode') === 'navigate' &&
    c.req.header('sec-fetch-dest') === 'document'
  );
}

/** A page that sends the browser on to `target` (a path of the studio) with no script. */
function movingOnPage(target: string): string {
  const href = target.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="refresh" content="0; url=${href}"><title>Muster studio</title></head>` +
    `<body><p><a href="${href}">Open the Muster studio</a></p></body></html>`
  );
}

function forbid(c: Context, message: string): Response {
  return c.json(errorBody('STUDIO_FORBIDDEN', message), 403);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
