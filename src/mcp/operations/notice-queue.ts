import { McpError } from '../../errors/index.js';
import type { McpNotice } from '../contracts/operation-types.js';

/** The most notices a `listen()` stream holds unread before it fails (see {@link NoticeQueue}). */
export const LISTEN_QUEUE_LIMIT = 1000;

/**
 * The async queue behind a `listen()` stream. Ended by its listener (`close()`, `return()`),
 * it finishes at once, unread notices dropped. Failed (the connection went away, or more than
 * {@link LISTEN_QUEUE_LIMIT} notices were left unread), it first yields what was queued, then
 * throws the failure, so a reader never waits on a stream that can no longer deliver and
 * never misses notices without being told.
 */
export class NoticeQueue implements AsyncIterable<McpNotice> {
  readonly #items: McpNotice[] = [];
  #waiters: { resolve: (r: IteratorResult<McpNotice>) => void; reject: (e: unknown) => void }[] =
    [];
  #ended = false;
  #failure: McpError | undefined;

  constructor(
    private readonly server: string,
    private readonly limit: number = LISTEN_QUEUE_LIMIT,
    /** Called once when the queue fails on its own (overflow), so the subscription is released. */
    private readonly onOverflow: () => void = () => undefined,
  ) {}

  /** Queues one notice (or hands it to a waiting reader). */
  push(n: McpNotice): void {
    if (this.#ended) return;
    const w = this.#waiters.shift();
    if (w) return w.resolve({ value: n, done: false });
    if (this.#items.length >= this.limit) {
      this.fail(
        new McpError(
          'MCP_OPERATION_FAILED',
          `The listen() stream of '${this.server}' had more than ${this.limit} unread notices and was closed: read it faster, then list again and listen anew.`,
          { server: this.server, details: { server: this.server, reason: 'queue-overflow' } },
        ),
      );
      this.onOverflow();
      return;
    }
    this.#items.push(n);
  }

  /** Ends the stream; what was not read yet is dropped (the listener closed it). */
  end(): void {
    if (this.#ended && this.#failure === undefined) return;
    this.#ended = true;
    this.#failure = undefined;
    this.#items.length = 0;
    for (const w of this.#waiters) w.resolve({ value: undefined, done: true });
    this.#waiters = [];
  }

  /** Fails the stream: queued notices are still read, then `error` is thrown. */
  fail(error: McpError): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#failure = error;
    for (const w of this.#waiters) w.reject(error);
    this.#waiters = [];
  }

  /** The notices in arrival order; ends when the queue ends, and throws its failure. */
  [Symbol.asyncIterator](): AsyncIterator<McpNotice> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.#failure) {
          const failure = this.#failure;
          this.#failure = undefined;
          return Promise.reject(failure);
        }
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
