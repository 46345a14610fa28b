import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transport } from '@modelcontextprotocol/client';

/**
 * Why this exists: the Streamable HTTP transport reads a `text/event-stream` answer to a
 * POST in the background, after `send()` has resolved. When the guarded fetch fails that
 * stream (an oversized event), the transport only reports `onerror`, and the request
 * would wait for its timeout. Watching the POST bodies opened while one request is sent
 * lets that `send()` reject with the guard's own error, which the client hands to the
 * caller at once.
 */
const watches = new AsyncLocalStorage<RequestBodies>();

/** The response bodies of one request being sent, and the first guard failure among them. */
interface RequestBodies {
  readonly ends: Promise<void>[];
  failure?: unknown;
}

/**
 * Records the end of a response body opened by the guarded fetch. Only the bodies of POST
 * requests count: a GET made in the same async context (a standalone or resumed stream)
 * belongs to no single request.
 */
export function trackResponseBody(method: string, done: Promise<void>): void {
  if (method.toUpperCase() !== 'POST') return;
  const bodies = watches.getStore();
  if (bodies === undefined) return;
  bodies.ends.push(done);
  // Recorded in the same microtask turn the body fails, before any reader sees the error.
  done.catch((error: unknown) => {
    bodies.failure ??= error;
  });
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
 * wait changes nothing else.
 */
export function settleSendWithResponseBody(transport: Transport): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (!carriesRequest(message)) return send(message, options);
    const bodies: RequestBodies = { ends: [] };
    return watches.run(bodies, async () => {
      try {
        await send(message, options);
      } catch (error) {
        throw bodies.failure ?? error;
      }
      await Promise.all(bodies.ends);
    });
  };
}
