import type { ServerResponse } from 'node:http';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { StudioEvent } from './api-types.js';
import type { StudioApprovals, StudioElicitations, StudioEventSink } from './studio-context.js';

/** Bytes a slow stream may fall behind by before it is closed (the page reconnects). */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
/** Open streams at most; a new one closes the oldest (a page reconnects on its own). */
const MAX_SUBSCRIBERS = 16;
/** A comment line this often keeps idle streams open through proxies and browsers. */
const KEEPALIVE_MS = 20_000;
/** How long shutdown waits for the streams to send what was published before it. */
const FLUSH_MS = 2000;

/** One message, serialized once for every stream. */
interface Message {
  readonly event: string;
  readonly data: string;
  readonly id: string;
}

/** One open `/api/events` stream. */
class Subscriber {
  readonly #backlog: Message[] = [];
  #bytes = 0;
  #wake: (() => void) | undefined;
  closed = false;

  constructor(private readonly maxBytes: number) {}

  push(message: Message): void {
    if (this.closed) return;
    const size = message.data.length + message.event.length + message.id.length;
    if (this.#bytes + size > this.maxBytes) return this.close();
    this.#bytes += size;
    this.#backlog.push(message);
    this.#wakeUp();
  }

  /** Ends the stream; with `flush`, what is queued is still sent first (on shutdown). */
  close(flush = false): void {
    this.closed = true;
    if (!flush) this.#backlog.length = 0;
    this.#wakeUp();
  }

  /** The next message, or `undefined` once closed. */
  async next(): Promise<Message | undefined> {
    while (this.#backlog.length === 0 && !this.closed)
      await new Promise<void>((resolve) => (this.#wake = resolve));
    const message = this.#backlog.shift();
    if (message !== undefined)
      this.#bytes -= message.data.length + message.event.length + message.id.length;
    return message;
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** Limits of {@link StudioEventHub} (the defaults suit the studio; tests lower them). */
export interface StudioEventHubOptions {
  /** Open streams at most (default 16); a new stream closes the oldest. */
  readonly maxSubscribers?: number;
  /** Unsent characters a stream may hold (default 8 MiB); past that it is closed. */
  readonly maxBacklogBytes?: number;
}

/**
 * The studio's live updates: every published {@link StudioEvent} goes to every open
 * `GET /api/events` stream (Server-Sent Events, `event: <kind>`, `data: <json>`). Errors in
 * events are sent as `{ code, message }` only. At most `maxSubscribers` streams stay open (a
 * new one closes the oldest) and a stream that falls `maxBacklogBytes` behind is closed: the
 * page's `EventSource` reconnects, and its new `hello` says what is pending and running.
 */
export class StudioEventHub implements StudioEventSink {
  readonly #subscribers = new Set<Subscriber>();
  /** Each open stream's end: its response sent to the socket (or the request gone). */
  readonly #ends = new Set<Promise<void>>();
  readonly #maxSubscribers: number;
  readonly #maxBacklogBytes: number;
  #liveRuns: () => readonly string[] = () => [];
  #seq = 0;

  constructor(options: StudioEventHubOptions = {}) {
    this.#maxSubscribers = options.maxSubscribers ?? MAX_SUBSCRIBERS;
    this.#maxBacklogBytes = options.maxBacklogBytes ?? MAX_BACKLOG_BYTES;
  }

  /** Where `hello` takes the live runs from (the studio's runs, once they exist). */
  setLiveRuns(live: () => readonly string[]): void {
    this.#liveRuns = live;
  }

  /** Sends `event` to every open stream. */
  publish(event: StudioEvent): void {
    if (this.#subscribers.size === 0) return;
    const message = this.#message(event);
    for (const s of this.#subscribers) s.push(message);
  }

  /**
   * Ends every stream (on shutdown), after what was published before (a withdrawn approval,
   * say): resolves once each stream's response is sent, or after 2 seconds at most.
   */
  async close(): Promise<void> {
    for (const s of this.#subscribers) s.close(true);
    this.#subscribers.clear();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(this.#ends),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_MS))),
    ]);
    clearTimeout(timer);
  }

  /** The `GET /api/events` route: a stream that starts with `hello` (what is pending and running now). */
  routes(approvals: StudioApprovals, elicitations: StudioElicitations): (app: Hono) => void {
    return (app) => {
      app.get('/api/events', (c) => {
        const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
        if (outgoing !== undefined) {
          const ended = new Promise<void>((resolve) => {
            outgoing.once('finish', resolve);
            outgoing.once('close', resolve);
          });
          this.#ends.add(ended);
          void ended.then(() => this.#ends.delete(ended));
        }
        return streamSSE(c, async (stream) => {
          // subscribed and greeted in one synchronous step, so nothing published falls between
          const subscriber = new Subscriber(this.#maxBacklogBytes);
          // the set keeps insertion order: the first is the oldest
          for (const old of this.#subscribers) {
            if (this.#subscribers.size < this.#maxSubscribers) break;
            old.close();
            this.#subscribers.delete(old);
          }
          this.#subscribers.add(subscriber);
          subscriber.push(
            this.#message({
              kind: 'hello',
              approvals: approvals.pending(),
              elicitations: elicitations.pending(),
              runs: this.#liveRuns(),
            }),
          );
          stream.onAbort(() => subscriber.close());
          const keepalive = setInterval(() => void stream.write(': keepalive\n\n'), KEEPALIVE_MS);
          keepalive.unref();
          try {
            for (let m = await subscriber.next(); m !== undefined; m = await subscriber.next()) {
              if (stream.aborted || stream.closed) break;
              await stream.writeSSE(m);
            }
          } finally {
            clearInterval(keepalive);
            this.#subscribers.delete(subscriber);
            subscriber.close();
          }
        });
      });
    };
  }

  #message(event: StudioEvent): Message {
    return {
      event: event.kind,
      data: JSON.stringify(event, errorsAsData),
      id: String(++this.#seq),
    };
  }
}

/** A JSON replacer that writes an `Error` as `{ code, message }` (never its details or cause). */
function errorsAsData(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : 'INTERNAL_ERROR', message: value.message };
  }
  return value;
}
