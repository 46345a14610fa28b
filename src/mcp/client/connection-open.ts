import { McpError } from '../../errors/index.js';
import { ConnectBound } from './connect-bound.js';
import type {
  ConnectionLink,
  ConnectionSpecOf,
  ProtocolVerdict,
} from '../contracts/connection-types.js';
import { openSdkLink } from '../servers/sdk-connection.js';
import { declaresExtension, isStdioConfig } from './era-choice.js';
import { findInCauseChain } from '../failures/cause-chain.js';
import { answeredWithError } from './pending-requests.js';
import { HandedOverError, SharedPipe } from './pipe-lease.js';
import { openDirectLink, usesFastPath } from './sdk-fast-path.js';
import type { TransportHandle } from '../transports/index.js';
import { once } from '../../util/index.js';

/** The transports room, loaded on the first connection (one shared promise: see `loadClient`). */
const loadTransports = once(() => import('../transports/index.js'));

/**
 * What the open path reads of a connection it opened: its era, its verdict, the server's
 * capabilities, and `close()`.
 */
export interface NegotiatedConnection {
  readonly era: 'modern' | 'legacy' | undefined;
  readonly verdict: ProtocolVerdict | undefined;
  readonly serverCapabilities: Readonly<Record<string, unknown>> | undefined;
  /** Closes it; with `force`, a stdio server is stopped at once. */
  close(options?: { readonly force?: boolean }): Promise<void>;
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
 * the first contact starts one process, as the legacy mode does; only a server that declares
 * an extension, or does not take the legacy `initialize` tried first, is started again.
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
    const { createTransport } = await bound.race(loadTransports());
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
 * The first contact with a stdio server in `auto` mode, on the real process (docs/decisions.md,
 * "First contact with a stdio server: `initialize` first"): the plain legacy `initialize` goes
 * first ({@link tryLegacyEra}), so a server that serves the legacy era (dual-era or legacy-only)
 * costs one round trip and runs one era's code, as with a legacy client.
 *
 * - Answered, no extension declared: the connection is legacy, on this process.
 * - Answered with an extension declared (the Tasks extension needs 2026-07-28): this process
 *   is legacy now, so it is stopped and the server started again in `auto`, where the official
 *   client's `server/discover` finds the modern era ({@link startedAgain}).
 * - Refused with a JSON-RPC error (a modern-only server): the official client probes the same
 *   process and goes on in the modern era, marked `legacyRefused` (not tried again).
 * - No answer within the connect bound: the connect fails, as in the legacy mode, its error
 *   saying how to pin a server that ignores `initialize`.
 * - Anything else (the process ended, an answer the client did not take): started again in
 *   `auto`, marked `legacyFailed` (tried again in a day).
 *
 * A refused send of a handed-over client never leaves here as it is (see {@link handoverFailure}).
 */
async function negotiateInPlace<C extends NegotiatedConnection>(
  spec: ConnectionSpecOf<C>,
  connect: ConnectOver<C>,
  bound: ConnectBound,
  start: () => OpenedLink,
): Promise<C> {
  const first = start();
  const pipe = new SharedPipe(first.link.transport);
  // until a lease adopts the pipe, no connection owns the process: any way out but an
  // adoption stops it (an abort, a failure before a client took the pipe)
  const stop = () => void first.link.terminate?.().catch(() => undefined);
  let adopted = false;
  try {
    const tried = await tryLegacyEra(spec, connect, bound, { ...first.link, transport: pipe });
    if (tried.connection) {
      if (!declaresExtension(tried.connection.serverCapabilities)) {
        adopted = true;
        return tried.connection;
      }
      // thrown away: stopped at once, not given time to exit
      await bound.race(tried.connection.close({ force: true }));
      return await startedAgain(spec, connect, bound, start, {});
    }
    if (bound.failure) throw bound.failure;
    if (tried.refused) {
      // `initialize` answered with a JSON-RPC error: the official client probes this process
      // with `server/discover` and goes on in the modern era
      const modern = pipe.lease({ owning: true });
      const connection = await connect(
        { ...spec, legacyTrial: { legacyRefused: true } },
        { ...first.link, transport: modern },
        bound,
      );
      adopted = true;
      return connection;
    }
    stop();
    return await startedAgain(spec, connect, bound, start, { legacyFailed: true });
  } catch (err) {
    throw handoverFailure(spec.server, err);
  } finally {
    if (!adopted) stop();
  }
}

/**
 * The server started again in `auto` (after a legacy `initialize` that found an extension or
 * failed): the official client probes it with `server/discover`. One that ends on that probe
 * after answering `initialize` the first time is a legacy server, as the official client
 * decides: started once more, legacy. One whose `initialize` failed too has failed both eras:
 * its error stands (no third process).
 */
async function startedAgain<C extends NegotiatedConnection>(
  spec: ConnectionSpecOf<C>,
  connect: ConnectOver<C>,
  bound: ConnectBound,
  start: () => OpenedLink,
  legacyTrial: NonNullable<ConnectionSpecOf<C>['legacyTrial']>,
): Promise<C> {
  const again = start();
  try {
    return await connect({ ...spec, legacyTrial }, again.link, bound);
  } catch (err) {
    if (bound.failure || legacyTrial.legacyFailed || !again.endedOnProbe()) throw err;
    return await connect({ ...spec, verdict: { kind: 'legacy' } }, start().link, bound);
  }
}

/** What the legacy `initialize` tried on a server's process came to. */
interface LegacyTrial<C> {
  /** The legacy connection, which owns the process now. */
  readonly connection?: C;
  /** True when the server answered `initialize` with a JSON-RPC error (a refusal). */
  readonly refused: boolean;
}

/**
 * The plain `initialize`, the first request on the process of a first contact (`link`, whose
 * transport is the shared pipe), by a client over a lease of that pipe that lets it go without
 * stopping the process, within the connect's bound. Only a JSON-RPC error answer to it is a
 * refusal (the client's `ProtocolError`, by type); anything else that fails it (the process
 * ended, a send failed, an answer the client did not take) is not.
 */
async function tryLegacyEra<C extends NegotiatedConnection>(
  spec: ConnectionSpecOf<C>,
  connect: ConnectOver<C>,
  bound: ConnectBound,
  link: Omit<ConnectionLink, 'transport'> & { readonly transport: SharedPipe },
): Promise<LegacyTrial<C>> {
  const legacy = link.transport.lease({ owning: false });
  bound.hintOnTimeout(
    `It did not answer initialize, the first request of a first contact in auto mode; a server that serves only 2026-07-28 and ignores initialize needs mcp.protocol.mode { pin: '2026-07-28' }.`,
  );
  try {
    const connection = await connect(
      { ...quietOnHandover(spec), verdict: { kind: 'legacy' } },
      { ...link, transport: legacy },
      bound,
    );
    legacy.adopt();
    return { connection, refused: false };
  } catch (err) {
    const refused = !bound.failure && answeredWithError(err) && link.exit?.() === undefined;
    return { refused };
  } finally {
    bound.hintOnTimeout(undefined);
  }
}

/**
 * `err`, unless it is (or wraps) the refusal of a handed-over client's send, which must never
 * reach a host as it is: then a connect failure of Muster's own.
 */
function handoverFailure(server: string, err: unknown): unknown {
  if (!findInCauseChain(err, (e) => (e instanceof HandedOverError ? true : undefined))) return err;
  return new McpError(
    'MCP_CONNECTION_FAILED',
    `Server '${server}' could not connect: the protocol era negotiation on its process was cut short; connect again.`,
    { server, cause: err, details: { server } },
  );
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
