import type { McpListenSubscription } from '../mcp/index.js';
import type { SubscriptionView } from './api-types.js';
import type { StudioContext } from './studio-context.js';

/**
 * The studio's resource subscriptions: one `agent.mcp.listen()` stream per server and URI,
 * each update published as `{ kind: 'resource.updated' }`. The list of them is the one truth
 * the page shows (`GET /api/subscriptions`). A stream that ends by itself (the server went
 * away, or closed it) is forgotten and `{ kind: 'resource.subscription.ended' }` is
 * published; every stream closes, without that event, when the studio shuts down.
 */
export class ResourceSubscriptions {
  readonly #open = new Map<
    string,
    { readonly view: SubscriptionView; readonly opening: Promise<McpListenSubscription> }
  >();

  constructor(private readonly ctx: StudioContext) {
    ctx.signal.addEventListener('abort', () => void this.closeAll(), { once: true });
  }

  /** The subscriptions held now (those still opening included), in the order they were made. */
  list(): SubscriptionView[] {
    return [...this.#open.values()].map((entry) => entry.view);
  }

  /** Subscribes to `uri` of `server` (idempotent); rejects when the server refuses. */
  async subscribe(server: string, uri: string): Promise<void> {
    const key = keyOf(server, uri);
    const existing = this.#open.get(key);
    if (existing) {
      await existing.opening;
      return;
    }
    const opening = this.ctx.agent.mcp.listen(
      server,
      { resourceSubscriptions: [uri] },
      { signal: this.ctx.signal },
    );
    this.#open.set(key, { view: { server, uri }, opening });
    let sub: McpListenSubscription;
    try {
      sub = await opening;
    } catch (err) {
      if (this.#open.get(key)?.opening === opening) this.#open.delete(key);
      throw err;
    }
    void this.#pump(key, opening, sub, server, uri);
  }

  /** Ends the subscription to `uri` of `server`; false when there was none. */
  async unsubscribe(server: string, uri: string): Promise<boolean> {
    const key = keyOf(server, uri);
    const entry = this.#open.get(key);
    if (!entry) return false;
    this.#open.delete(key);
    const sub = await entry.opening.catch(() => undefined);
    await sub?.close();
    return sub !== undefined;
  }

  /** Closes every stream. */
  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(all.map(async (entry) => (await entry.opening).close()));
  }

  async #pump(
    key: string,
    opening: Promise<McpListenSubscription>,
    sub: McpListenSubscription,
    server: string,
    uri: string,
  ): Promise<void> {
    let reason: string | undefined;
    try {
      for await (const notice of sub.events) {
        const updated = notice.params?.['uri'];
        if (typeof updated === 'string')
          this.ctx.events.publish({ kind: 'resource.updated', server, uri: updated });
      }
    } catch (err) {
      // the connection went away: the page shows it ended; subscribe again once it is back
      reason = codeOf(err);
    } finally {
      // still listed: nobody here ended it (unsubscribe and shutdown remove it first)
      if (this.#open.get(key)?.opening === opening) {
        this.#open.delete(key);
        await sub.close().catch(() => undefined);
        this.ctx.events.publish({
          kind: 'resource.subscription.ended',
          server,
          uri,
          ...(reason === undefined ? {} : { reason }),
        });
      }
    }
  }
}

function keyOf(server: string, uri: string): string {
  return `${server}\n${uri}`;
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'MCP_DISCONNECTED';
}
