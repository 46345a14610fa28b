import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { StudioEvent } from './api-types.js';
import type { StudioApprovals, StudioElicitations, StudioEventSink } from './studio-context.js';

/** Messages a slow stream may fall behind by before it is closed (the page reconnects). */
const MAX_BACKLOG = 10_000;
/** A comment line this often keeps idle streams open through proxies and browsers. */
const KEEPALIVE_MS = 20_000;

/** One message, serialized once for every stream. */
interface Message {
  readonly event: string;
  readonly data: string;
  readonly id: string;
}

/** One open `/api/events` stream. */
class Subscriber {
  readonly #backlog: Message[] = [];
  #wake: (() => void) | undefined;
  closed = false;

  push(message: Message): void {
    if (this.closed) return;
    if (this.#backlog.length >= MAX_BACKLOG) return this.close();
    this.#backlog.push(message);
    this.#wakeUp();
  }

  close(): void {
    this.closed = true;
    this.#wakeUp();
  }

  /** The next message, or `undefined` once closed. */
  async next(): Promise<Message | undefined> {
    while (this.#backlog.length === 0 && !this.closed)
      await new Promise<void>((resolve) => (this.#wake = resolve));
    return this.closed ? undefined : this.#backlog.shift();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * The studio's live updates: every published {@link StudioEvent} goes to every open
 * `GET /api/events` stream (Server-Sent Events, `event: <kind>`, `data: <json>`). Errors in
 * events are sent as `{ code, message }` only.
 */
export class StudioEventHub implements StudioEventSink {
  readonly #subscribers = new Set<Subscriber>();
  #seq = 0;

  /** Sends `event` to every open stream. */
  publish(event: StudioEvent): void {
    if (this.#subscribers.size === 0) return;
    const message = this.#message(event);
    for (const s of this.#subscribers) s.push(message);
  }

  /** Ends every stream (on shutdown). */
  close(): void {
    for (const s of this.#subscribers) s.close();
    this.#subscribers.clear();
  }

  /** The `GET /api/events` route: a stream that starts with `hello` (what is pending now). */
  routes(approvals: StudioApprovals, elicitations: StudioElicitations): (app: Hono) => void {
    return (app) => {
      app.get('/api/events', (c) =>
        streamSSE(c, async (stream) => {
          // subscribed and greeted in one synchronous step, so nothing published falls between
          const subscriber = new Subscriber();
          this.#subscribers.add(subscriber);
          subscriber.push(
            this.#message({
              kind: 'hello',
              approvals: approvals.pending(),
              elicitations: elicitations.pending(),
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
        }),
      );
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
