import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transport } from '@modelcontextprotocol/client';
import type { McpError } from '../errors/index.js';

/** The operation whose requests are being sent (each `run` has its own tag). */
const CURRENT = new AsyncLocalStorage<object>();

type SendOptions = Parameters<Transport['send']>[1] & { onRequestStreamEnd?: () => void };

/**
 * The requests in flight on one connection, so that each can fail at once when its answer can
 * no longer come, rather than at its timeout. Every operation runs inside {@link run}; the
 * requests it sends are recorded by JSON-RPC id (the wrapped `send` reads the operation from
 * the async context, so no request option is needed), until their answer arrives. Then:
 * - `failId` fails the operation of one request (its answer was too large to read, its
 *   response stream ended without it);
 * - `failAll` fails every operation (the connection is gone).
 */
export class PendingRequests {
  readonly #rejects = new Map<object, (error: McpError) => void>();
  readonly #tags = new Map<unknown, object>();
  /** The request ids each operation sent, so its end forgets them without a scan. */
  readonly #ids = new WeakMap<object, unknown[]>();

  /** Runs one operation; it fails with the error of `failId`/`failAll` as soon as one comes. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const tag = {};
    const lost = new Promise<never>((_, reject) => this.#rejects.set(tag, reject));
    lost.catch(() => undefined);
    const done = CURRENT.run(tag, work);
    done.catch(() => undefined);
    return Promise.race([done, lost]).finally(() => {
      this.#rejects.delete(tag);
      for (const id of this.#ids.get(tag) ?? [])
        if (this.#tags.get(id) === tag) this.#tags.delete(id);
    });
  }

  /**
   * Records the requests `transport` sends inside {@link run}. With `streams` (Streamable
   * HTTP, which reports the end of each request's response stream), a stream that ended before
   * the answer came fails that request with `onStreamLost()`: the transport gave up on it.
   */
  watch(transport: Transport, streams?: { onStreamLost: () => McpError }): void {
    const send = transport.send.bind(transport);
    transport.send = (message, options?: SendOptions) => {
      const tag = CURRENT.getStore();
      const id = (message as { id?: unknown }).id;
      if (tag === undefined || id === undefined || !('method' in message))
        return send(message, options);
      this.#tags.set(id, tag);
      const ids = this.#ids.get(tag);
      if (ids) ids.push(id);
      else this.#ids.set(tag, [id]);
      if (!streams) return send(message, options);
      const inner = options?.onRequestStreamEnd;
      const watched: SendOptions = {
        ...options,
        onRequestStreamEnd: () => {
          inner?.();
          if (this.#tags.get(id) === tag) this.failId(id, streams.onStreamLost());
        },
      };
      return send(message, watched);
    };
  }

  /** The answer of request `id` arrived: it no longer waits. */
  answered(id: unknown): void {
    this.#tags.delete(id);
  }

  /** Fails the operation that sent request `id`, if it still waits. */
  failId(id: unknown, error: McpError): void {
    const tag = this.#tags.get(id);
    this.#tags.delete(id);
    if (tag) this.#rejects.get(tag)?.(error);
  }

  /** Fails every operation in flight with the error `make()` returns. */
  failAll(make: () => McpError): void {
    const rejects = [...this.#rejects.values()];
    this.#rejects.clear();
    this.#tags.clear();
    for (const reject of rejects) reject(make());
  }
}
