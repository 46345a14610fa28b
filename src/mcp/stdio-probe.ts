import type { Transport } from '@modelcontextprotocol/client';
import { loadClient } from './client-errors.js';
import type { McpStdioServerConfig } from './config-types.js';
import type { ConnectBound } from './connect-bound.js';
import { CLIENT_INFO } from './connection-types.js';
import type { ConnectionSpecOf, ProtocolVerdict } from './connection-types.js';
import { MCP_DEFAULTS } from './mcp-defaults.js';

/** What the probe needs of a connection's spec. */
type ProbeSpec = Pick<
  ConnectionSpecOf<unknown>,
  'server' | 'transport' | 'capabilities' | 'probe'
> & { readonly config: McpStdioServerConfig };

/**
 * Muster's own protocol probe of a stdio server in `auto` mode (the first contact, when no
 * verdict is remembered). The official client probes a stdio server on a throwaway sibling
 * process it spawns and reaps itself, and gives no handle on it: an abort could not stop it,
 * and it waited for its own timeout. So Muster starts the throwaway process itself, from the
 * same parameters (the sandbox launcher included, stderr discarded), and lets a throwaway
 * client probe it in place (`server/discover`, as the official client would); the verdict is
 * then handed to the real connection as its `prior`, so the real server is started once.
 *
 * The verdict, on typed facts: the client connected in the modern era (its discover result);
 * or it went on to `initialize` (legacy: the server refused the probe, gave an unusable
 * answer, or was silent for the probe timeout); or the throwaway process exited during the
 * probe (servers built on SDKs that end on any request before `initialize` are legacy
 * servers, as the official client also decides). Any other failure (the command cannot be
 * started) is the connect's failure. The throwaway process is stopped as soon as the verdict
 * is known, or at once when `bound` fires (an abort, `connectTimeoutMs`).
 */
export async function probeStdioEra(
  spec: ProbeSpec,
  bound: ConnectBound,
): Promise<ProtocolVerdict> {
  const [{ Client }, { createStdioTransport }] = await Promise.all([
    loadClient(),
    import('./transports/index.js'),
  ]);
  const handle = createStdioTransport(spec.config, spec.transport, true);
  const { promise: sawInitialize, resolve: legacy } = withResolvers<'legacy'>();
  holdInitialize(handle.transport, () => legacy('legacy'));
  const timeoutMs = Math.min(
    spec.probe?.timeoutMs ?? MCP_DEFAULTS.probeTimeoutMs,
    bound.remainingMs(),
  );
  const client = new Client(CLIENT_INFO, {
    capabilities: spec.capabilities ?? {},
    versionNegotiation: {
      mode: 'auto',
      probe: { timeoutMs, maxRetries: spec.probe?.maxRetries ?? 0 },
    },
  });
  try {
    const connected = client
      .connect(handle.transport, { timeout: bound.remainingMs() })
      .then(() => 'connected' as const);
    const outcome = await bound.race(Promise.race([connected, sawInitialize]));
    const discover = client.getDiscoverResult?.();
    if (outcome === 'connected' && client.getProtocolEra?.() === 'modern' && discover)
      return { kind: 'modern', discover };
    return { kind: 'legacy' };
  } catch (err) {
    if (bound.failure) throw bound.failure;
    // a server that ends on the unknown request is a legacy one; the real connect tells the rest
    if (handle.exit?.() !== undefined) return { kind: 'legacy' };
    throw err;
  } finally {
    // Muster's throwaway: stopped now, reaped in the background
    void handle.terminate?.();
  }
}

/**
 * Keeps `initialize` from the throwaway process: the client sends it only once it has
 * decided the server is legacy, which is the verdict; the process is stopped right after.
 */
function holdInitialize(transport: Transport, onInitialize: () => void): void {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      onInitialize();
      return Promise.resolve();
    }
    return send(message, options);
  };
}

function withResolvers<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
