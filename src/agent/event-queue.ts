/**
 * A single-consumer queue that lets concurrent producers (tool calls, progress reports) feed
 * one async iterator in arrival order.
 */
export class EventQueue<T> {
  #items: T[] = [];
  #head = 0;
  #waiter: (() => void) | undefined;
  #closed = false;

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

  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.#head < this.#items.length) {
        const item = this.#items[this.#head]!;
        this.#items[this.#head++] = undefined as T;
        yield item;
      }
      this.#items = [];
      this.#head = 0;
      if (this.#closed) return;
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}
