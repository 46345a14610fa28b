import { ConnectBound } from './connect-bound.js';
import type { ConnectionLink, ConnectionSpecOf } from '../contracts/connection-types.js';
import { openSdkLink } from '../servers/sdk-connection.js';
import { openDirectLink, usesFastPath } from './sdk-fast-path.js';
import type { TransportHandle } from '../transports/index.js';

/** Connects a client over a link within a connect bound (the connection's own step). */
export type ConnectOver<C> = (
  spec: ConnectionSpecOf<C>,
  link: ConnectionLink,
  bound: ConnectBound,
) => Promise<C>;

/**
 * Opens the link of a connection and hands it to `connect`: an in-process server's linked
 * pair, or the transport of a process or remote server, all within one {@link ConnectBound}
 * (`connectTimeoutMs` and the run's signal). A stdio server in `auto` mode without a
 * remembered verdict is negotiated in place, on the real process (`server/discover`, then
 * `initialize` on the same pipe when the server is a legacy one), so the first contact starts
 * one process, as the legacy mode does; only a server that ends on the probe is started again.
 */
export async function openConnection<C>(
  spec: ConnectionSpecOf<C>,
  connect: ConnectOver<C>,
): Promise<C> {
  if (spec.config.type === 'sdk') {
    const config = spec.config;
    const link: ConnectionLink = usesFastPath(config, spec.mode)
      ? await openDirectLink({ ...spec, config })
      : await openSdkLink(config.server).then((l) => ({
          transport: l.transport,
          release: l.close,
        }));
    const bound = new ConnectBound(spec.server, spec.connectTimeoutMs, spec.signal);
    try {
      return await connect(spec, link, bound);
    } finally {
      bound.dispose();
    }
  }
  const bound = new ConnectBound(spec.server, spec.connectTimeoutMs, spec.signal);
  try {
    const { createTransport } = await bound.race(import('../transports/index.js'));
    const stdio = spec.config.type === undefined || spec.config.type === 'stdio';
    const inPlace = !spec.verdict && stdio && spec.mode === 'auto';
    const first = linkOf(spec, createTransport(spec.config, spec.transport));
    try {
      return await connect(spec, first.link, bound);
    } catch (err) {
      // a server that ends on the probe (any request before `initialize`) is a legacy server,
      // as the official client decides: it is started again and initialized plainly
      if (!inPlace || bound.failure || !first.endedOnProbe()) throw err;
      const second = linkOf(spec, createTransport(spec.config, spec.transport));
      return await connect({ ...spec, verdict: { kind: 'legacy' } }, second.link, bound);
    }
  } finally {
    bound.dispose();
  }
}

/** A transport handle as a connection's link, and what its process did during the probe. */
interface OpenedLink {
  readonly link: ConnectionLink;
  /** True when the process ended by itself before `initialize` was sent. */
  endedOnProbe(): boolean;
}

function linkOf<C>(spec: ConnectionSpecOf<C>, handle: TransportHandle): OpenedLink {
  const { transport } = handle;
  let initializeSent = false;
  let endedFirst: boolean | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && message.method === 'initialize') initializeSent = true;
    return send(message, options);
  };
  // whether the process had ended before anyone asked it to stop
  const stopping = () => (endedFirst ??= handle.exit?.() !== undefined);
  const close = transport.close.bind(transport);
  transport.close = () => {
    stopping();
    return close();
  };
  const terminate = handle.terminate?.bind(handle);
  const link: ConnectionLink = {
    transport,
    release: async () => undefined,
    ...(handle.stderrTail ? { stderr: handle.stderrTail.bind(handle) } : {}),
    ...(handle.exit ? { exit: handle.exit.bind(handle) } : {}),
    ...(terminate ? { terminate: () => (stopping(), terminate()) } : {}),
    ...(handle.tasks ? { tasks: handle.tasks } : {}),
  };
  const { stderrTail, exit, pid } = handle;
  if (stderrTail && exit && pid)
    spec.onProcess?.({
      stderrTail: stderrTail.bind(handle),
      exit: exit.bind(handle),
      pid: pid.bind(handle),
    });
  return { link, endedOnProbe: () => !initializeSent && (endedFirst ?? stopping()) };
}
