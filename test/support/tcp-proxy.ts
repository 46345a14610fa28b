import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy in front of one server (such as PostgreSQL on 127.0.0.1:5432) that a
 * test can cut off like a network partition: no reset, no close, the bytes simply stop.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
 * const store = new PostgresSessionStore({ connectionString: proxy.urlFor(databaseUrl) });
 * proxy.cut(); // requests through the proxy now get no answer
 * proxy.restore(); // the held bytes arrive, late, as after a partition heals
 * await proxy.close();
 * ```
 */
export interface TcpProxy {
  /** The loopback port the proxy listens on. */
  readonly port: number;
  /** True between {@link TcpProxy.cut} and {@link TcpProxy.restore}. */
  readonly isCut: boolean;
  /** `url` (such as a `postgres://` connection string) with its host and port the proxy's. */
  urlFor(url: string): string;
  /**
   * Stops forwarding in both directions, on open connections and on those that open while
   * cut, without closing any socket: what each side sends, and its closes, are held. The
   * proxy's own sockets still acknowledge at the TCP level, so TCP keepalive does not see
   * the cut; timeouts above TCP (the driver's, a lease's deadline) do.
   */
  cut(): void;
  /**
   * Forwards again: the held bytes and closes are delivered in order, late, as when a
   * partition heals and TCP retransmits. Connections opened while cut reach the server now.
   */
  restore(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a {@link TcpProxy} on a free loopback port, forwarding to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let isCut = false;
  const pairs = new Set<Pair>();
  const server = net.createServer((client) => {
    const pair = new Pair(client, target);
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    if (!isCut) pair.open();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get isCut() {
      return isCut;
    },
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    cut() {
      isCut = true;
      for (const pair of pairs) pair.hold();
    },
    restore() {
      isCut = false;
      for (const pair of pairs) pair.flow();
    },
    async close() {
      for (const pair of pairs) pair.destroy();
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One side of a connection: bytes and its end held while cut. */
class Leg {
  readonly held: Buffer[] = [];
  ended = false;
}

/** A client's connection and its connection to the server, forwarded by hand. */
class Pair {
  #upstream: net.Socket | undefined;
  #holding = true;
  readonly #fromClient = new Leg();
  readonly #fromServer = new Leg();

  constructor(
    private readonly client: net.Socket,
    private readonly target: { host: string; port: number },
  ) {
    client.on('error', () => this.destroy());
    this.#forward(client, this.#fromClient, () => this.#upstream);
  }

  /** Connects to the server and starts forwarding. */
  open(): void {
    const upstream = net.connect(this.target.port, this.target.host);
    this.#upstream = upstream;
    upstream.on('error', () => this.destroy());
    upstream.on('close', () => {
      if (!this.#holding) this.client.destroy();
    });
    this.#forward(upstream, this.#fromServer, () => this.client);
    this.flow();
  }

  hold(): void {
    this.#holding = true;
  }

  flow(): void {
    if (!this.#upstream) {
      this.open();
      return;
    }
    this.#holding = false;
    this.#drain(this.#fromClient, this.#upstream);
    this.#drain(this.#fromServer, this.client);
  }

  destroy(): void {
    this.client.destroy();
    this.#upstream?.destroy();
  }

  #forward(from: net.Socket, leg: Leg, to: () => net.Socket | undefined): void {
    from.on('data', (chunk: Buffer) => {
      leg.held.push(chunk);
      const dest = to();
      if (!this.#holding && dest) this.#drain(leg, dest);
    });
    from.on('end', () => {
      leg.ended = true;
      const dest = to();
      if (!this.#holding && dest) this.#drain(leg, dest);
    });
  }

  #drain(leg: Leg, to: net.Socket): void {
    for (const chunk of leg.held.splice(0)) to.write(chunk);
    if (leg.ended && !to.writableEnded) to.end();
  }
}
