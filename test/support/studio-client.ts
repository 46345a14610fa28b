/**
 * A small HTTP client for the studio tests: real requests over loopback with `node:http`
 * (so the `Host` and `Origin` headers are exactly the ones a test chooses), sign-in with
 * the printed URL's token, and a Server-Sent Events reader for `/api/events`.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** An answer: status, headers and the body as text (and parsed, when it is JSON). */
export interface StudioReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly json: unknown;
}

/** One request; `headers` replace the defaults (set one to `undefined` to leave it out). */
export interface StudioRequest {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly body?: unknown;
}

/** Sends a request to `127.0.0.1:<port>`; the default `Host` is the studio's own. */
export function send(port: number, req: StudioRequest): Promise<StudioReply> {
  const body =
    req.body === undefined
      ? undefined
      : typeof req.body === 'string'
        ? req.body
        : JSON.stringify(req.body);
  const headers: Record<string, string> = {};
  const merged = { host: `127.0.0.1:${port}`, ...req.headers };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined) headers[k] = v;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: req.method ?? 'GET',
        path: req.path,
        headers,
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

/** A signed-in client of one studio: sends the cookie, the studio's Origin on writes. */
export interface StudioClient {
  readonly port: number;
  readonly origin: string;
  readonly cookie: string;
  get(path: string): Promise<StudioReply>;
  post(path: string, body: unknown): Promise<StudioReply>;
  delete(path: string): Promise<StudioReply>;
  /** Every body this client received, for the canary checks. */
  readonly seen: string[];
}

/** Exchanges the token of `url` for the cookie, as the browser does with the printed URL. */
export async function signIn(url: string): Promise<StudioClient> {
  const parsed = new URL(url);
  const port = Number(parsed.port);
  const reply = await send(port, { path: `${parsed.pathname}${parsed.search}` });
  if (reply.status !== 303) throw new Error(`sign-in answered ${reply.status}: ${reply.text}`);
  const setCookie = reply.headers['set-cookie']?.[0];
  if (setCookie === undefined) throw new Error('sign-in set no cookie');
  const cookie = setCookie.split(';')[0]!;
  const origin = parsed.origin;
  const seen: string[] = [];
  const keep = (r: StudioReply): StudioReply => {
    seen.push(r.text);
    return r;
  };
  return {
    port,
    origin,
    cookie,
    seen,
    get: async (path) => keep(await send(port, { path, headers: { cookie } })),
    delete: async (path) =>
      keep(
        await send(port, {
          method: 'DELETE',
          path,
          headers: { cookie, origin, 'content-type': 'application/json' },
        }),
      ),
    post: async (path, body) =>
      keep(
        await send(port, {
          method: 'POST',
          path,
          body,
          headers: { cookie, origin, 'content-type': 'application/json' },
        }),
      ),
  };
}

/** One Server-Sent Event. */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

/** An open `/api/events` stream: every event received, and a way to wait for one. */
export interface SseReader {
  readonly events: SseEvent[];
  /** The raw text received so far. */
  raw(): string;
  /** Resolves with the first event (already received or coming) that `match` accepts. */
  waitFor(match: (e: SseEvent) => boolean, what: string, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `/api/events` with the client's cookie and parses the stream as it arrives. */
export function openEvents(client: StudioClient): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const waiters = new Set<() => void>();
    let raw = '';
    let buffer = '';
    const r = httpRequest(
      {
        host: '127.0.0.1',
        port: client.port,
        path: '/api/events',
        headers: {
          host: `127.0.0.1:${client.port}`,
          cookie: client.cookie,
          accept: 'text/event-stream',
        },
        setHost: false,
      },
      (res: IncomingMessage) => {
        if (res.statusCode !== 200)
          return reject(new Error(`/api/events answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          raw += chunk;
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let event = 'message';
            const data: string[] = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
            }
            if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) });
          }
          for (const w of waiters) w();
        });
        resolve({
          events,
          raw: () => raw,
          waitFor: (match, what, timeoutMs = 30_000) =>
            new Promise((ok, fail) => {
              const check = (): boolean => {
                const found = events.find(match);
                if (found === undefined) return false;
                waiters.delete(check);
                clearTimeout(timer);
                ok(found);
                return true;
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(
                  new Error(
                    `no ${what} on the event stream; got: ${events.map((e) => e.event).join(', ')}`,
                  ),
                );
              }, timeoutMs);
              if (!check()) waiters.add(check);
            }),
          close: () => r.destroy(),
        });
      },
    );
    r.on('error', (err) => reject(err));
    r.end();
  });
}
