import { ConnectBound } from './connect-bound.js';
import type {
  ConnectionLink,
  ConnectionSpecOf,
  ProtocolVerdict,
} from '../contracts/connection-types.js';
import { MCP_DEFAULTS } from '../contracts/mcp-defaults.js';
import { openSdkLink } from '../servers/sdk-connection.js';
import { isStdioConfig, prefersLegacyEra } from './era-choice.js';
import { HandedOverError, SharedPipe } from './pipe-lease.js';
import { openDirectLink, usesFastPath } from './sdk-fast-path.js';
import type { TransportHandle } from '../transports/index.js';

/** What the open path reads of a connection it opened: its era, its verdict, and `close()`. */
export interface NegotiatedConnection {
  readonly era: 'modern' | 'legacy' | undefined;
  readonly verdict: ProtocolVerdict | undefined;
  close(): Promise<void>;
}

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
 * remembered verdict is negotiated in place, on the real process (see {@link negotiateInPlace}):
 * the first contact starts one process, as the legacy mode does; only a server that ends on
 * the probe (or does not answer the legacy `initialize` tried after it) is started again.
 */
export async function openConnection<C extends NegotiatedConnection>(
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
    const config = spec.config;
    const start = () => linkOf(spec, createTransport(config, spec.transport));
    if (!spec.verdict && isStdioConfig(config) && spec.mode === 'auto')
      return await negotiateInPlace(spec, connect, bound, start);
    return await connect(spec, start().link, bound);
  } finally {
    bound.dispose();
  }
}

/**
 * The first contact with a stdio server in `auto` mode, on the real process: the official
 * client probes with `server/discover` and, for a legacy server, sends `initialize` on the
 * same pipe. A server that ends on the probe (any request before `initialize`) is a legacy
 * server, as the official client decides: it is started again and initialized plainly.
 *
 * A server that answers the probe in the modern era but declares no extension
 * ({@link prefersLegacyEra}) is spoken to in the legacy era (docs/decisions.md): the first
 * client, which sent the server nothing after the probe (its lease refused it), is detached
 * and the same process handed to a second client that runs the plain `initialize`. A server
 * that refuses it stays modern on the same pipe (its verdict says so: `legacyRefused`); one
 * that does not answer within the probe timeout, or ends, is started again in the modern era.
 */
async function negotiateInPlace<C extends NegotiatedConnection>(
  spec: ConnectionSpecOf<C>,
  connect: ConnectOver<C>,
  bound: ConnectBound,
  start: () => OpenedLink,
): Promise<C> {
  const first = start();
  const pipe = new SharedPipe(first.link.transport);
  const probing = pipe.lease({ owning: true, holdAfterChoice: true });
  let opened: C;
  try {
    opened = await connect(quietOnHandover(spec), { ...first.link, transport: probing }, bound);
  } catch (err) {
    if (bound.failure || !first.endedOnProbe()) throw err;
    return await connect({ ...spec, verdict: { kind: 'legacy' } }, start().link, bound);
  }
  const verdict = opened.verdict;
  if (verdict?.kind !== 'modern' || !prefersLegacyEra(verdict.discover)) return opened;
  probing.retire();
  await opened.close();
  // the plain `initialize` on the same pipe, bounded as the probe is
  const probeMs = spec.probe?.timeoutMs ?? MCP_DEFAULTS.probeTimeoutMs;
  const trial = new ConnectBound(spec.server, Math.min(probeMs, bound.remainingMs()), bound.signal);
  const legacy = pipe.lease({ owning: false });
  const refused = { kind: 'modern', discover: verdict.discover, legacyRefused: true } as const;
  try {
    const connection = await connect(
      { ...spec, verdict: { kind: 'legacy' } },
      { ...first.link, transport: legacy },
      trial,
    );
    legacy.adopt();
    return connection;
  } catch {
    if (bound.failure) throw bound.failure;
    if (trial.failure === undefined && first.link.exit?.() === undefined) {
      // `initialize` refused (a modern-only server): it goes on in the modern era
      const modern = pipe.lease({ owning: true });
      return await connect(
        { ...spec, verdict: refused },
        { ...first.link, transport: modern },
        bound,
      );
    }
    // no answer within the probe timeout, or the process ended: started again, modern
    void first.link.terminate?.().catch(() => undefined);
    return await connect({ ...spec, verdict: refused }, start().link, bound);
  } finally {
    trial.dispose();
  }
}

/** `spec` with the errors of a handed-over client's refused sends kept from `onError`. */
function quietOnHandover<C>(spec: ConnectionSpecOf<C>): ConnectionSpecOf<C> {
  const onError = spec.onError;
  if (!onError) return spec;
  return {
    ...spec,
    onError: (error) => {
      if (!(error instanceof HandedOverError)) onError(error);
    },
  };
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
