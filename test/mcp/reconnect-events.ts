// Helpers of the reconnect tests: a log of MCP events that tests can wait on.
import { performance } from 'node:perf_hooks';
import type { McpEvent, McpServerStatusEvent, McpServerStatusValue } from '../../src/index.js';

interface Waiter {
  readonly wanted: (e: McpEvent) => boolean;
  readonly resolve: (e: McpEvent) => void;
}

/** Every MCP event a manager or agent reported, in order; `next` waits for a future one. */
export class EventLog {
  readonly all: McpEvent[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #arrived = new WeakMap<object, number>();

  /** The observer to hand to `onEvent`. */
  readonly push = (e: McpEvent): void => {
    this.#arrived.set(e, performance.now());
    this.all.push(e);
    for (const w of [...this.#waiters]) {
      if (!w.wanted(e)) continue;
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      w.resolve(e);
    }
  };

  /**
   * The next event (from now on) that `wanted` accepts. Fails after `failAfterMs` so that a
   * test that would wait forever fails with a message instead (not a timing assertion).
   */
  next(wanted: (e: McpEvent) => boolean, what: string, failAfterMs = 30_000): Promise<McpEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`no ${what} within ${failAfterMs} ms; saw: ${this.describe()}`));
      }, failAfterMs);
      const waiter: Waiter = {
        wanted,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  /** The next `mcp.server.status` event of `server` with `status`. */
  status(
    server: string,
    status: McpServerStatusValue,
    failAfterMs?: number,
  ): Promise<McpServerStatusEvent> {
    return this.next(
      (e) => e.type === 'mcp.server.status' && e.server === server && e.status === status,
      `'${status}' status of '${server}'`,
      failAfterMs,
    ) as Promise<McpServerStatusEvent>;
  }

  /** When `e` arrived (`performance.now()`). */
  arrivedAt(e: object): number {
    const at = this.#arrived.get(e);
    if (at === undefined) throw new Error('not an event of this log');
    return at;
  }

  /** The statuses of `server`, in order. */
  statuses(server: string): McpServerStatusValue[] {
    return this.all
      .filter((e): e is McpServerStatusEvent => e.type === 'mcp.server.status')
      .filter((e) => e.server === server)
      .map((e) => e.status);
  }

  /** A short account of what was seen, for failure messages. */
  describe(): string {
    return this.all
      .map((e) => `${e.type}${'status' in e ? `:${e.status}` : ''}`)
      .slice(-30)
      .join(', ');
  }
}
