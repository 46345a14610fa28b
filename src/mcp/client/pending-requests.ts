import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import type { McpError } from '../../errors/index.js';
import { clientErrorOf, protocolErrorDataOf } from '../failures/client-errors.js';
import { keepResponsesAfterNotifications } from './response-order.js';

type SendOptions = Parameters<Transport['send']>[1] & { onRequestStreamEnd?: () => void };

/**
 * The JSON-RPC error code of the answers Muster hands the client itself for requests whose
 * real answer can no longer come. The client never sends it to a server; it only reaches
 * {@link PendingRequests.failureOf}, which turns it back into Muster's own error.
 */
const LOCAL_FAILURE_CODE = -32_099;
/** The key, in that answer's `data`, of the failure it stands for. */
const FAILURE_KEY = 'musterLocalFailure';

/**
 * The requests in flight on one connection, so that each can fail at once when its answer can
 * no longer come, rather than at its timeout. The wrapped `send` records every request id
 * until its answer arrives. Then:
 * - `failId` fails one request (its answer was too large to read, its response stream ended
 *   without it) by handing the client an error answer for that id, so the client settles the
 *   request as it settles any answer (its timer, progress handler and abort listener go), and
 *   {@link failureOf} turns that answer back into the Muster error it stands for;
 * - `failAll` does so for every request in flight (the connection is being closed).
 * No async context is needed to tell which operation sent a request: the answer goes to the
 * request itself (`AsyncLocalStorage` would turn on Node's promise hooks for the whole host
 * process, a cost every promise then pays).
 */
export class PendingRequests {
  /** The ids of requests sent and not yet answered. */
  readonly #open = new Set<unknown>();
  /** The failures handed to the client and not yet read back, by their key. */
  readonly #failures = new Map<number, McpError>();
  #nextKey = 0;
  #deliver: ((message: JSONRPCMessage) => void) | undefined;

  /**
   * Records the requests `transport` sends. With `streams` (Streamable HTTP, which reports the
   * end of each request's response stream), a stream that ended before the answer came fails
   * that request with `onStreamLost()`: the transport gave up on it.
   */
  watch(transport: Transport, streams?: { onStreamLost: () => McpError }): void {
    this.#deliver = (message) => transport.onmessage?.(message);
    const send = transport.send.bind(transport);
    transport.send = (message, options?: SendOptions) => {
      const id = (message as { id?: unknown }).id;
      if (!('method' in message)) return send(message, options);
      // the client gives up on a request (timeout, abort) by cancelling it: it waits no more
      if (message.method === 'notifications/cancelled') {
        this.#open.delete((message.params as { requestId?: unknown } | undefined)?.requestId);
        return send(message, options);
      }
      // only the client's own numbered requests: the streams and probes it names itself
      // (`listen:1`, the discover probe) are settled by the client when their streams end
      if (typeof id !== 'number') return send(message, options);
      this.#open.add(id);
      if (!streams) return send(message, options);
      const inner = options?.onRequestStreamEnd;
      const watched: SendOptions = {
        ...options,
        onRequestStreamEnd: () => {
          inner?.();
          this.failId(id, streams.onStreamLost());
        },
      };
      return send(message, watched);
    };
  }

  /** The answer of request `id` arrived: it no longer waits. */
  answered(id: unknown): void {
    this.#open.delete(id);
  }

  /**
   * A stdio answer to `id` was too large to read: the request fails with `error` (as
   * {@link failId}); a request not recorded here gets a plain error answer, so it never waits.
   */
  failAnswer(id: number | string, error: McpError): void {
    if (this.failId(id, error)) return;
    this.#deliver?.({ jsonrpc: '2.0', id, error: { code: -32_603, message: error.message } });
  }

  /** Fails request `id` with `error`, if it still waits; true when it did. */
  failId(id: unknown, error: McpError): boolean {
    if (!this.#open.delete(id) || !this.#deliver) return false;
    const key = ++this.#nextKey;
    this.#failures.set(key, error);
    this.#deliver({
      jsonrpc: '2.0',
      id: id as string | number,
      error: { code: LOCAL_FAILURE_CODE, message: error.message, data: { [FAILURE_KEY]: key } },
    });
    return true;
  }

  /** Fails every request in flight with the error `make()` returns. */
  failAll(make: () => McpError): void {
    for (const id of [...this.#open]) this.failId(id, make());
  }

  /** Forgets every request in flight (the client has failed them itself). */
  forgetAll(): void {
    this.#open.clear();
  }

  /** The Muster error that `err` (what the client threw) stands for, if {@link failId} made it. */
  failureOf(err: unknown): McpError | undefined {
    const fact = clientErrorOf(err);
    if (fact?.kind !== 'protocol' || fact.code !== LOCAL_FAILURE_CODE) return undefined;
    const key = (protocolErrorDataOf(err) as Record<string, unknown> | undefined)?.[FAILURE_KEY];
    if (typeof key !== 'number') return undefined;
    const failure = this.#failures.get(key);
    this.#failures.delete(key);
    return failure;
  }
}

/**
 * True when `err` is the client's error for a JSON-RPC error answer the server sent (its
 * `ProtocolError`), not one a {@link PendingRequests} handed the client in its name.
 */
export function answeredWithError(err: unknown): boolean {
  const fact = clientErrorOf(err);
  return fact?.kind === 'protocol' && fact.code !== LOCAL_FAILURE_CODE;
}

/**
 * Records the requests `transport` sends in `pending` (see {@link PendingRequests.watch}),
 * fails a request whose stdio answer was over the size bound (`onOversizedAnswer`, the
 * connection goes on), and keeps responses behind the notifications that came before them.
 */
export function watchTransport(
  pending: PendingRequests,
  transport: Transport,
  streams?: { onStreamLost: () => McpError },
): void {
  pending.watch(transport, streams);
  (
    transport as Transport & { onOversizedAnswer?: (id: number | string, e: McpError) => void }
  ).onOversizedAnswer = (id, error) => pending.failAnswer(id, error);
  keepResponsesAfterNotifications(transport, (id) => pending.answered(id));
}
