import type { McpStdioServerConfig } from './config-types.js';
import { ConnectBound } from './connect-bound.js';
import type { ConnectionLink, ConnectionSpecOf } from './connection-types.js';
import { openSdkLink } from './sdk-connection.js';
import { probeStdioEra } from './stdio-probe.js';

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
 * remembered verdict is probed first by Muster's own throwaway process (see `probeStdioEra`);
 * a legacy verdict is passed on, a modern server is probed again in place.
 */
export async function openConnection<C>(
  spec: ConnectionSpecOf<C>,
  connect: ConnectOver<C>,
): Promise<C> {
  if (spec.config.type === 'sdk') {
    const link = await openSdkLink(spec.config.server);
    const bound = new ConnectBound(spec.server, spec.connectTimeoutMs, spec.signal);
    try {
      return await connect(spec, { transport: link.transport, release: link.close }, bound);
    } finally {
      bound.dispose();
    }
  }
  const bound = new ConnectBound(spec.server, spec.connectTimeoutMs, spec.signal);
  try {
    const stdio = spec.config.type === undefined || spec.config.type === 'stdio';
    // Muster's own probe; a modern server is then probed again in place (it answers
    // `server/discover`, and the client opens its change subscription only on that path)
    const probed =
      !spec.verdict && stdio && spec.mode === 'auto'
        ? await probeStdioEra({ ...spec, config: spec.config as McpStdioServerConfig }, bound)
        : undefined;
    const verdict = spec.verdict ?? (probed?.kind === 'legacy' ? probed : undefined);
    const { createTransport } = await bound.race(import('./transports/index.js'));
    const handle = createTransport(spec.config, spec.transport);
    const link: ConnectionLink = {
      transport: handle.transport,
      release: async () => undefined,
      ...(handle.stderrTail ? { stderr: handle.stderrTail.bind(handle) } : {}),
      ...(handle.exit ? { exit: handle.exit.bind(handle) } : {}),
      ...(handle.terminate ? { terminate: handle.terminate.bind(handle) } : {}),
    };
    const { stderrTail, exit, pid } = handle;
    if (stderrTail && exit && pid)
      spec.onProcess?.({
        stderrTail: stderrTail.bind(handle),
        exit: exit.bind(handle),
        pid: pid.bind(handle),
      });
    return await connect({ ...spec, ...(verdict ? { verdict } : {}) }, link, bound);
  } finally {
    bound.dispose();
  }
}
