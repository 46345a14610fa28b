import type { NotificationHub } from './notification-hub.js';
import type { OperationContext } from './operation-context.js';
import type {
  McpListenFilter,
  McpListenSubscription,
  McpNotice,
  McpOperationOptions,
} from './operation-types.js';

/**
 * Opens a stream of a server's change notifications. On a modern (2026-07-28) connection it
 * is a `subscriptions/listen` subscription; on a legacy one the same notifications arrive
 * unsolicited (resource updates after `resources/subscribe`, done here for
 * `resourceSubscriptions`). Either way the stream yields what `filter` asks for.
 */
export async function listen(
  ops: OperationContext,
  hub: NotificationHub,
  server: string,
  filter: McpListenFilter,
  options?: McpOperationOptions,
): Promise<McpListenSubscription> {
  const queue = new NoticeQueue();
  const stop = hub.subscribe((n) => {
    if (n.server === server && wanted(filter, n)) queue.push(n);
  });
  let release: () => Promise<void>;
  try {
    release = await ops.run(server, 'Listening', 'read', options, (c, request) =>
      c.request(async (client) => {
        if (c.era === 'modern') {
          // The client's own subscription (opened for list changes at connect) already
          // delivers what it honors; ask the server only for the rest, so nothing arrives twice.
          const honored = client.autoOpenedSubscription?.honoredFilter ?? {};
          const rest = {
            ...(filter.toolsListChanged && !honored.toolsListChanged
              ? { toolsListChanged: true }
              : {}),
            ...(filter.promptsListChanged && !honored.promptsListChanged
              ? { promptsListChanged: true }
              : {}),
            ...(filter.resourcesListChanged && !honored.resourcesListChanged
              ? { resourcesListChanged: true }
              : {}),
            ...(filter.resourceSubscriptions?.length
              ? { resourceSubscriptions: [...filter.resourceSubscriptions] }
              : {}),
          };
          if (Object.keys(rest).length === 0) return async () => undefined;
          const sub = await client.listen(rest, request);
          void sub.closed.then(() => queue.end());
          return () => sub.close();
        }
        const uris = filter.resourceSubscriptions ?? [];
        for (const uri of uris) await client.subscribeResource({ uri }, request);
        return async () => {
          for (const uri of uris) await client.unsubscribeResource({ uri }).catch(() => undefined);
        };
      }),
    );
  } catch (err) {
    stop();
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    events: queue,
    close: () =>
      (closing ??= (async () => {
        stop();
        queue.end();
        await release().catch(() => undefined);
      })()),
  };
}

function wanted(filter: McpListenFilter, n: McpNotice): boolean {
  switch (n.method) {
    case 'notifications/tools/list_changed':
      return filter.toolsListChanged === true;
    case 'notifications/prompts/list_changed':
      return filter.promptsListChanged === true;
    case 'notifications/resources/list_changed':
      return filter.resourcesListChanged === true;
    case 'notifications/resources/updated':
      return (filter.resourceSubscriptions ?? []).includes(String(n.params?.['uri']));
    default:
      return false;
  }
}

/** An unbounded async queue of notices that ends when the subscription closes. */
class NoticeQueue implements AsyncIterable<McpNotice> {
  readonly #items: McpNotice[] = [];
  #waiters: ((r: IteratorResult<McpNotice>) => void)[] = [];
  #ended = false;

  push(n: McpNotice): void {
    if (this.#ended) return;
    const w = this.#waiters.shift();
    if (w) w({ value: n, done: false });
    else this.#items.push(n);
  }

  /** Ends the stream; what was not read yet is dropped (the listener closed it). */
  end(): void {
    this.#ended = true;
    this.#items.length = 0;
    for (const w of this.#waiters) w({ value: undefined, done: true });
    this.#waiters = [];
  }

  [Symbol.asyncIterator](): AsyncIterator<McpNotice> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => this.#waiters.push(resolve));
      },
      return: () => {
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
