import type { McpListenSubscription } from '../mcp/index.js';
import type { StudioContext } from './studio-context.js';

/**
 * The studio's resource subscriptions: one `agent.mcp.listen()` stream per server and URI,
 * each update published as `{ kind: 'resource.updated' }`. A stream that ends (the server
 * went away) is forgotten; every stream closes when the studio shuts down.
 */
export class ResourceSubscriptions {
  readonly #open = new Map<string, Promise<McpListenSubscription>>();

  constructor(private readonly ctx: StudioContext) {
    ctx.signal.addEventListener('abort', () => void this.closeAll(), { once: true });
  }

  /** Subscribes to `uri` of `server` (idempotent); rejects when the server refuses. */
  async subscribe(server: string, uri: string): Promise<void> {
    const key = keyOf(server, uri);
    const existing = this.#open.get(key);
    if (existing) {
      await existing;
      return;
    }
    const opening = this.ctx.agent.mcp.listen(
      server,
      { resourceSubscriptions: [uri] },
      { signal: this.ctx.signal },
    );
    this.#open.set(key, opening);
    let sub: McpListenSubscription;
    try {
      sub = await opening;
    } catch (err) {
      if (this.#open.get(key) === opening) this.#open.delete(key);
      throw err;
    }
    void this.#pump(key, opening, sub, server);
  }

  /** Ends the subscription to `uri` of `server`; false when there was none. */
  async unsubscribe(server: string, uri: string): Promise<boolean> {
    const key = keyOf(server, uri);
    const opening = this.#open.get(key);
    if (!opening) return false;
    this.#open.delete(key);
    const sub = await opening.catch(() => undefined);
    await sub?.close();
    return sub !== undefined;
  }

  /** Closes every stream. */
  async closeAll(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(all.map(async (p) => (await p).close()));
  }

  async #pump(
    key: string,
    opening: Promise<McpListenSubscription>,
    sub: McpListenSubscription,
    server: string,
  ): Promise<void> {
    try {
      for await (const notice of sub.events) {
        const uri = notice.params?.['uri'];
        if (typeof uri === 'string')
          this.ctx.events.publish({ kind: 'resource.updated', server, uri });
      }
    } catch {
      // the connection went away: the page subscribes again once the server is back
    } finally {
      if (this.#open.get(key) === opening) this.#open.delete(key);
    }
  }
}

function keyOf(server: string, uri: string): string {
  return `${server}\n${uri}`;
}
