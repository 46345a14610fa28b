import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { MusterError } from '../errors/index.js';

/** The path of the OAuth redirect URI the listener serves. */
export const CALLBACK_PATH = '/callback';

/**
 * A loopback HTTP listener for one `muster mcp auth` login, on `127.0.0.1`:
 * - `redirectUri` (`http://127.0.0.1:<port>/callback`) receives the browser after the login;
 * - `startUrl` (`http://127.0.0.1:<port>/start/<random>`) redirects to the authorization URL
 *   once it is known, so the URL printed for the user carries no OAuth `state` or PKCE
 *   challenge (they never reach the terminal or its scrollback).
 *
 * Only requests for the listener's own `Host` (`127.0.0.1:<port>`) are served: another host
 * name (a web page that rebound its DNS name to 127.0.0.1) is answered 400. A callback is
 * taken only when it carries the `state` of the authorization URL, exactly once: any other
 * (a page of another site guessing at the port, a stale tab) is answered 400 and the login
 * keeps waiting, so a forged request can never fail the sign-in.
 */
export interface CallbackListener {
  readonly redirectUri: string;
  readonly startUrl: string;
  /** Makes `startUrl` redirect to `authUrl`. */
  setAuthorizationUrl(authUrl: string): void;
  /**
   * Resolves with the full URL of the next callback request that carries the authorization
   * URL's `state`; rejects when `signal` aborts. A callback with that `state` that arrives
   * while nothing waits (a second one, say) is answered 409 and dropped; one with another
   * `state`, or none, is answered 400 and ignored.
   */
  nextCallback(signal: AbortSignal): Promise<string>;
  /** Stops listening (open connections are dropped). Idempotent. */
  close(): Promise<void>;
}

const DONE_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Muster</title>' +
  '<p>Muster received the sign-in: the terminal says whether it succeeded. You can close this tab.</p>';
const FOREIGN_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Muster</title>' +
  '<p>This page does not belong to the sign-in <code>muster mcp auth</code> waits for: it was ignored. Open the URL the terminal printed.</p>';
const NOT_WAITING_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Muster</title>' +
  '<p>No sign-in is waiting for this page: run <code>muster mcp auth</code> again.</p>';

/** Starts the listener on `127.0.0.1:<port>` (`0`: a free port the system picks). */
export async function startCallbackListener(port = 0): Promise<CallbackListener> {
  const startPath = `/start/${randomBytes(12).toString('base64url')}`;
  let authUrl: string | undefined;
  /** The `state` of `authUrl`: the one a callback must carry. */
  let expectedState: string | undefined;
  let waiter: ((url: string) => void) | undefined;
  let origin = '';
  let host = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const page = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };
    if (req.headers.host !== host) {
      // the browser of the printed URL names 127.0.0.1:<port>; anything else is another site
      res.writeHead(400, page).end(FOREIGN_PAGE);
    } else if (req.method !== 'GET') {
      res.writeHead(405).end();
    } else if (url.pathname === startPath && authUrl !== undefined) {
      res.writeHead(302, { location: authUrl, 'cache-control': 'no-store' }).end();
    } else if (url.pathname === CALLBACK_PATH && !sameState(url, expectedState)) {
      res.writeHead(400, page).end(FOREIGN_PAGE);
    } else if (url.pathname === CALLBACK_PATH) {
      // only the login that waits takes a callback; a repeated one is turned away
      const take = waiter;
      res.writeHead(take ? 200 : 409, page).end(take ? DONE_PAGE : NOT_WAITING_PAGE);
      take?.(url.href);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(
        new MusterError(
          'INVALID_CONFIGURATION',
          `Cannot listen for the sign-in callback on 127.0.0.1:${port}: ${err.message}. Pick another --port (0 for any).`,
          { cause: err },
        ),
      ),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  host = `127.0.0.1:${bound}`;
  origin = `http://${host}`;
  let closed: Promise<void> | undefined;
  return {
    redirectUri: `${origin}${CALLBACK_PATH}`,
    startUrl: `${origin}${startPath}`,
    setAuthorizationUrl(url) {
      authUrl = url;
      expectedState = URL.canParse(url)
        ? (new URL(url).searchParams.get('state') ?? undefined)
        : undefined;
    },
    nextCallback(signal) {
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          waiter = undefined;
          reject(signal.reason);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        waiter = (url) => {
          waiter = undefined;
          signal.removeEventListener('abort', onAbort);
          resolve(url);
        };
      });
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

/** True when `url` carries exactly one `state`, equal to `expected` (compared in constant time). */
function sameState(url: URL, expected: string | undefined): boolean {
  const given = url.searchParams.getAll('state');
  if (expected === undefined || given.length !== 1) return false;
  const a = Buffer.from(given[0]!);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
