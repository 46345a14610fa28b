/**
 * A single-consumer queue that lets concurrent producers (tool calls, progress reports) feed
 * one consumer in arrival order. The consumer takes items with {@link take} and waits with
 * {@link wait} only when the queue is empty, so items that arrive while it is busy cost no
 * promise: they are picked up in one pass.
 */
export class EventQueue<T> {
  #items: T[] = [];
  #head = 0;
  #waiter: (() => void) | undefined;
  #closed = false;

  /** Adds an item and wakes the consumer; ignored once closed. */
  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#wake();
  }

  /** No more items will come; the consumer drains what is left. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** True once closed and every item has been taken. */
  get done(): boolean {
    return this.#closed && this.#head >= this.#items.length;
  }

  /** The oldest item not yet taken, or `undefined` when there is none now. */
  take(): T | undefined {
    if (this.#head >= this.#items.length) {
      if (this.#head > 0) {
        this.#items = [];
        this.#head = 0;
      }
      return undefined;
    }
    const item = this.#items[this.#head]!;
    this.#items[this.#head++] = undefined as T;
    return item;
  }

  /** Resolves once an item is pushed or the queue is closed (at once if either holds now). */
  wait(): Promise<void> {
    if (this.#closed || this.#head < this.#items.length) return Promise.resolve();
    return new Promise<void>((resolve) => (this.#waiter = resolve));
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}
