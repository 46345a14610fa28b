import type { Transport } from '@modelcontextprotocol/client';

/** The key under which a call's request options carry its tag (never sent on the wire). */
const CALL_TAG = Symbol('muster.mcp.call');

/** Request headers that carry `tag`: a symbol key, so no header is added to the request. */
export function taggedHeaders(tag: object): Record<string, string> {
  return { [CALL_TAG]: tag } as unknown as Record<string, string>;
}

type SendOptions = Parameters<Transport['send']>[1] & { onRequestStreamEnd?: () => void };

/**
 * Tells when the transport gave up on the response stream of a tagged request: the
 * Streamable HTTP transport reports the end of each request's stream (`onRequestStreamEnd`),
 * also when it lost the stream and stopped reconnecting; a stream that ended before the
 * response arrived means that request will never be answered. Transports without
 * per-request streams (stdio, in-memory, legacy SSE) never report it; their losses close
 * the connection instead.
 *
 * Returns the observer of arriving responses (by JSON-RPC id), to hand to the code that
 * sees incoming messages.
 */
export function watchRequestStreams(
  transport: Transport,
  onLost: (tag: object) => void,
): (id: unknown) => void {
  // the tagged requests sent and not answered yet, by JSON-RPC id
  const pending = new Map<unknown, object>();
  const send = transport.send.bind(transport);
  transport.send = (message, options?: SendOptions) => {
    const tag = (options?.headers as Record<symbol, unknown> | undefined)?.[CALL_TAG];
    const id = (message as { id?: unknown }).id;
    if (typeof tag !== 'object' || tag === null || id === undefined || !('method' in message))
      return send(message, options);
    pending.set(id, tag);
    const inner = options?.onRequestStreamEnd;
    const watched: SendOptions = {
      ...options,
      onRequestStreamEnd: () => {
        inner?.();
        if (pending.get(id) !== tag) return;
        pending.delete(id);
        onLost(tag);
      },
    };
    return send(message, watched).catch((err: unknown) => {
      pending.delete(id);
      throw err;
    });
  };
  return (id) => void pending.delete(id);
}
