import { McpError } from '../../errors/index.js';
import type { NotificationHub } from '../client/notification-hub.js';
import { NoticeQueue } from './notice-queue.js';
import type { OperationContext } from './operation-context.js';
import type {
  McpListenFilter,
  McpListenSubscription,
  McpNotice,
  McpOperationOptions,
} from '../contracts/operation-types.js';

/**
 * Opens a stream of a server's change notifications. On a modern (2026-07-28) connection it
 * is a `subscriptions/listen` subscription; on a legacy one the same notifications arrive
 * unsolicited (resource updates after `resources/subscribe`, done here for
 * `resourceSubscriptions`). Either way the stream yields what `filter` asks for.
 *
 * The stream ends normally when its listener closes it. When the connection goes away (lost,
 * `disconnectAll()`, `unregister()`, `close()`), it yields what was queued, then throws
 * `MCP_DISCONNECTED`; with more than 1000 notices unread it throws `MCP_OPERATION_FAILED`
 * (`details.reason: 'queue-overflow'`) and the subscription is released. A legacy
 * subscription that fails partway unsubscribes the URIs it had subscribed.
 */
export async function listen(
  ops: OperationContext,
  hub: NotificationHub,
  server: string,
  filter: McpListenFilter,
  options?: McpOperationOptions,
): Promise<McpListenSubscription> {
  let closeStream = () => Promise.resolve();
  const queue = new NoticeQueue(server, undefined, () => void closeStream());
  const stop = hub.subscribe((n) => {
    if (n.server === server && wanted(filter, n)) queue.push(n);
  });
  let unwatch = () => {};
  let release: () => Promise<void>;
  try {
    release = await ops.run(server, 'Listening', 'read', options, (c, request) =>
      c.request(async (client) => {
        unwatch();
        unwatch = c.onClosed(() => queue.fail(disconnected(server)));
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
        const subscribed: string[] = [];
        const unsubscribe = async () => {
          for (const uri of subscribed.splice(0))
            await client.unsubscribeResource({ uri }).catch(() => undefined);
        };
        try {
          for (const uri of filter.resourceSubscriptions ?? []) {
            await client.subscribeResource({ uri }, request);
            subscribed.push(uri);
          }
        } catch (err) {
          await unsubscribe();
          throw err;
        }
        return unsubscribe;
      }),
    );
  } catch (err) {
    stop();
    unwatch();
    throw err;
  }
  let closing: Promise<void> | undefined;
  const finish = (end: boolean) =>
    (closing ??= (async () => {
      stop();
      unwatch();
      if (end) queue.end();
      await release().catch(() => undefined);
    })());
  closeStream = () => finish(false);
  return { events: queue, close: () => finish(true) };
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

function disconnected(server: string): McpError {
  return new McpError(
    'MCP_DISCONNECTED',
    `The listen() stream of '${server}' ended because the connection closed: listen again once it is connected.`,
    { server, details: { server } },
  );
}
