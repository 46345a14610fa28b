import type { Transport, TransportSendOptions } from '@modelcontextprotocol/client';

/**
 * Why this exists: the Streamable HTTP transport reads a `text/event-stream` answer to a
 * POST in the background, after `send()` has resolved. When the guarded fetch fails that
 * stream (an oversized event), the transport only reports `onerror`, and the request
 * would wait for its timeout. Watching the POST bodies opened while one request is sent
 * lets that `send()` reject with the guard's own error, which the client hands to the
 * caller at once.
 *
 * How a body finds its send without `AsyncLocalStorage` (which would turn on Node's promise
 * hooks for every promise of the host process): the send passes a private header naming it,
 * which the guarded fetch removes before the request leaves and uses to record the body. Only
 * the Streamable HTTP transport has this watch: the legacy SSE transport does not pass per-send
 * headers on (and its POSTs are only acknowledged: answers come on its event stream), so its
 * sends are left as they are and its guarded fetch has no watch.
 */

/** The private header that names one send; removed by the guarded fetch, never sent. */
export const SEND_MARK_HEADER = 'x-muster-send';

/** The response bodies of one request being sent, and the first guard failure among them. */
interface RequestBodies {
  readonly ends: Promise<void>[];
  failure?: unknown;
}

/** The sends of one transport waiting for their response bodies, by mark. */
export class ResponseBodyWatch {
  readonly #sends = new Map<string, RequestBodies>();
  #next = 0;

  /** A new send: its mark and its bodies. */
  open(): [mark: string, bodies: RequestBodies, close: () => void] {
    const mark = String(++this.#next);
    const bodies: RequestBodies = { ends: [] };
    this.#sends.set(mark, bodies);
    return [mark, bodies, () => this.#sends.delete(mark)];
  }

  /**
   * Records the end of a response body opened by the guarded fetch for the send `mark` (the
   * value of {@link SEND_MARK_HEADER}). Only POST bodies count: a GET belongs to no request.
   */
  track(mark: string, method: string, done: Promise<void>): void {
    if (method.toUpperCase() !== 'POST') return;
    const bodies = this.#sends.get(mark);
    if (bodies === undefined) return;
    bodies.ends.push(done);
    // Recorded in the same microtask turn the body fails, before any reader sees the error.
    done.catch((error: unknown) => {
      bodies.failure ??= error;
    });
  }
}

/** True when `message` is, or contains, a JSON-RPC request (it has `method` and `id`). */
function carriesRequest(message: unknown): boolean {
  const messages = Array.isArray(message) ? message : [message];
  return messages.some(
    (m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m && m.id != null,
  );
}

/**
 * Makes `transport.send()` of a request settle with its response body: it stays pending
 * until the bodies of the POSTs it made are finished with, and rejects with the guard's
 * error when one of them grew too large (also when the client already failed on that
 * body with an error of its own). Notifications and responses are sent as they are. The
 * client's request machinery only attaches a rejection handler to `send()`, so the longer
 * wait changes nothing else. `watch` is the one the transport's guarded fetch records into.
 */
export function settleSendWithResponseBody(transport: Transport, watch: ResponseBodyWatch): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    if (!carriesRequest(message)) return send(message, options);
    const [mark, bodies, close] = watch.open();
    const marked: TransportSendOptions = {
      ...options,
      headers: { ...options?.headers, [SEND_MARK_HEADER]: mark },
    };
    try {
      try {
        await send(message, marked);
      } catch (error) {
        throw bodies.failure ?? error;
      }
      await Promise.all(bodies.ends);
    } finally {
      close();
    }
  };
}
