import { SSEClientTransport, SseError } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import type { McpError } from '../../errors/index.js';
import type { McpSseServerConfig } from '../contracts/config-types.js';
import { createGuardedFetch } from './guarded-fetch.js';
import { validateRemoteConfig } from './remote-config.js';
import type { TransportContext, TransportHandle } from '../contracts/transport-types.js';

/**
 * Builds the official (legacy) `SSEClientTransport` for an `sse` server, on the checked URL
 * and through the guarded fetch, which also serves the event stream (`GET`) and the
 * message `POST`s. `redirectPolicy: 'follow'` leaves redirects to that fetch, which refuses
 * every one.
 *
 * Two additions keep failures prompt, since the event stream would otherwise reconnect on
 * its own: a failed `start()` closes the transport and rejects with the guard's error
 * (a redirect or an oversized answer) when there was one; and an event over the limit on
 * the open stream reports the guard's error through `onerror` and closes the transport,
 * so pending requests fail at once (the client rejects them as `CONNECTION_CLOSED`). An
 * event stream that breaks once open (cut, ended, refused on reconnect: the client's
 * `SseError`) closes the transport the same way: the answers to requests in flight would have
 * come on it, and a new stream is a new session, so they can no longer come.
 *
 * @throws MusterError `INVALID_CONFIGURATION` for a refused URL or header.
 */
export function createSseTransport(
  config: McpSseServerConfig,
  ctx: TransportContext,
): TransportHandle {
  const checked = validateRemoteConfig(ctx.server, config);
  let started = false;
  let refusal: McpError | undefined;
  // no request watch (`settleSendWithResponseBody`): `SSEClientTransport.send` does not pass
  // per-send headers on, so no POST could name its send; its POSTs are only acknowledgements
  const fetch = createGuardedFetch({
    server: ctx.server,
    maxResponseBytes: ctx.maxResponseBytes,
    headers: checked.headers,
    origin: checked.url,
    onRefusal: (error, method) => {
      refusal ??= error;
      // Called during requests only, so after `transport` below is assigned.
      if (!started || method !== 'GET') return;
      transport.onerror?.(error);
      void transport.close().catch(() => {});
    },
  });
  const transport = new SSEClientTransport(checked.url, { fetch, redirectPolicy: 'follow' });
  closeOnStreamError(transport, () => started);
  const start = transport.start.bind(transport);
  const close = transport.close.bind(transport);
  transport.start = async () => {
    refusal = undefined;
    try {
      await start();
    } catch (error) {
      await close().catch(() => {});
      throw refusal ?? error;
    }
    started = true;
  };
  return { transport };
}

/**
 * Wraps the `onerror` the client installs so that a broken event stream (an `SseError` once
 * the transport has started) also closes the transport.
 */
function closeOnStreamError(transport: Transport, started: () => boolean): void {
  let inner: Transport['onerror'];
  const wrapped = (error: Error) => {
    inner?.(error);
    if (started() && error instanceof SseError) void transport.close().catch(() => {});
  };
  Object.defineProperty(transport, 'onerror', {
    configurable: true,
    enumerable: true,
    get: () => (inner ? wrapped : undefined),
    set: (fn: Transport['onerror']) => {
      inner = fn;
    },
  });
}
