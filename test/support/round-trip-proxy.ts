import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP proxy in front of one server that counts round trips: a round trip starts
 * each time a client sends after the server last answered it (or first), so the several
 * messages of one request (pg's Parse, Bind, Execute, Sync) count once.
 */
export interface RoundTripProxy {
  readonly port: number;
  /** Round trips so far, over every connection. */
  readonly roundTrips: number;
  /** `url` with its host and port the proxy's. */
  urlFor(url: string): string;
  close(): Promise<void>;
}

/** Starts a {@link RoundTripProxy} on a free loopback port, forwarding to `target`. */
export async function startRoundTripProxy(target: {
  host: string;
  port: number;
}): Promise<RoundTripProxy> {
  let roundTrips = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let answered = true;
    client.on('data', (chunk: Buffer) => {
      if (answered) roundTrips++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      answered = true;
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get roundTrips() {
      return roundTrips;
    },
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
