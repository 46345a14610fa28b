import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { MusterError } from '../errors/index.js';

/** The only address the studio listens on. */
export const STUDIO_HOST = '127.0.0.1';

/** A listening studio server. */
export interface ListeningServer {
  readonly port: number;
  /** Stops listening and drops open connections (event streams included). */
  close(): Promise<void>;
}

/**
 * Checks `--host`: the studio is a local console with the powers of the agent behind it, so
 * it listens on the loopback interface only. `127.0.0.1` and `localhost` are accepted (both
 * mean 127.0.0.1); anything else fails with `INVALID_CONFIGURATION`.
 */
export function checkStudioHost(host: string | undefined): void {
  if (host === undefined || host === STUDIO_HOST || host.toLowerCase() === 'localhost') return;
  throw new MusterError(
    'INVALID_CONFIGURATION',
    `The studio listens on ${STUDIO_HOST} only, not '${host}': it can run tools and read sessions, so it must not be reachable from another machine. Leave out --host (tunnel over SSH to reach it remotely).`,
  );
}

/** Checks `--port`: a whole number from 0 (any free port) to 65535. */
export function checkStudioPort(port: number | undefined): number {
  if (port === undefined) return 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The studio port must be a whole number from 0 to 65535 (0 picks a free one), not ${String(port)}.`,
    );
  }
  return port;
}

/**
 * Listens on `127.0.0.1:<port>` (0: a free port) with `fetch` answering every request (`env`
 * holds the Node.js request and response, as `@hono/node-server` passes them).
 */
export async function listenStudio(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  port: number,
): Promise<ListeningServer> {
  const server = createAdaptorServer({ fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(
        err.code === 'EADDRINUSE'
          ? new MusterError(
              'INVALID_CONFIGURATION',
              `Port ${port} on ${STUDIO_HOST} is in use: pick another --port (0 picks a free one).`,
              { cause: err },
            )
          : new MusterError(
              'INTERNAL_ERROR',
              `The studio could not listen on ${STUDIO_HOST}:${port}: ${err.message}`,
              {
                cause: err,
              },
            ),
      );
    };
    server.once('error', onError);
    server.listen(port, STUDIO_HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    port: actual,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
