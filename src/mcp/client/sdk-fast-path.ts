import type { Client, Transport } from '@modelcontextprotocol/client';
import { loadClient } from '../failures/client-errors.js';
import { createClient } from './connection-client.js';
import type { McpSdkServerConfig } from '../contracts/config-types.js';
import type {
  ConnectionLink,
  ConnectionSpecOf,
  ConnectMode,
} from '../contracts/connection-types.js';
import { DirectClient } from '../servers/sdk-direct-client.js';
import type { ClientErrors, DirectEra } from '../servers/sdk-direct-errors.js';
import { directToolsOf } from '../servers/sdk-direct-tools.js';
import { openSdkLink } from '../servers/sdk-connection.js';
import type { SdkMcpServer } from '../servers/sdk-server.js';

/** The revisions the official client negotiates with an in-process server, by mode. */
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

/**
 * What of a definition needs the protocol, so it cannot take the fast path: requests to
 * the client (sampling, elicitation, roots) or notifications the server sends on its own.
 * A definition made by `createSdkMcpServer` has none of these today (tools only, whose
 * progress the fast path reports), so the list is empty; a feature that needs the protocol
 * adds its reason here.
 */
export function protocolNeeds(definition: SdkMcpServer): readonly string[] {
  void definition;
  return [];
}

/**
 * The era and revision the fast path reports for `mode`: those the transport path
 * negotiates with the same server (`auto` and a modern pin: modern; `legacy`: legacy), so
 * statuses read the same either way. Undefined for a pin the transport path would refuse:
 * that connection takes the transport path, which says why.
 */
function directEra(mode: ConnectMode): DirectEra | undefined {
  if (mode === 'auto') return { era: 'modern', protocolVersion: MODERN };
  if (mode === 'legacy') return { era: 'legacy', protocolVersion: LEGACY };
  return mode.pin === MODERN ? { era: 'modern', protocolVersion: MODERN } : undefined;
}

/** True when a connection to this sdk server takes the fast path. */
export function usesFastPath(config: McpSdkServerConfig, mode: ConnectMode): boolean {
  return (
    config.fastPath !== false &&
    protocolNeeds(config.server).length === 0 &&
    directEra(mode) !== undefined
  );
}

const INERT: Transport = {
  start: async () => undefined,
  send: async () => undefined,
  close: async () => undefined,
};

/**
 * Opens the fast path of an in-process server: a link that brings its own client (a
 * {@link DirectClient} that calls the definition's handlers directly) and an inert
 * transport. Requests the fast path does not serve open the transport path on first use.
 */
export async function openDirectLink(
  spec: Pick<
    ConnectionSpecOf<unknown>,
    'capabilities' | 'mode' | 'probe' | 'handlers' | 'onToolsChanged' | 'onNotification'
  > & { readonly config: McpSdkServerConfig },
): Promise<ConnectionLink> {
  const definition = spec.config.server;
  const era = directEra(spec.mode)!;
  const [tools, module] = await Promise.all([directToolsOf(definition, era.era), loadClient()]);
  const errors = module as unknown as ClientErrors;
  const protocol = async () => {
    const link = await openSdkLink(definition);
    const client = createClient(module.Client, spec);
    try {
      await client.connect(link.transport as never);
    } catch (err) {
      await link.close();
      throw err;
    }
    return {
      client,
      close: async () => {
        await client.close().catch(() => undefined);
        await link.close();
      },
    };
  };
  const direct = new DirectClient(definition, tools, era, errors, protocol);
  return {
    transport: { ...INERT },
    release: async () => undefined,
    client: asClient(direct, module.Client),
  };
}

/**
 * The direct client as a `Client`: a client method it does not serve runs on the protocol
 * client (opened first); any other property reads the protocol client's, once it is open.
 */
function asClient(direct: DirectClient, ClientClass: typeof Client): Client {
  const methods = ClientClass.prototype as unknown as Record<string, unknown>;
  return new Proxy(direct, {
    get(target, prop) {
      if (typeof prop === 'symbol' || prop === 'then' || prop in target) {
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      }
      if (typeof methods[prop] !== 'function')
        return (target.protocolNow() as unknown as Record<string, unknown> | undefined)?.[prop];
      return async (...args: unknown[]) => {
        const client = (await target.protocolClient()) as unknown as Record<
          string,
          (...a: unknown[]) => unknown
        >;
        return client[prop]!(...args);
      };
    },
  }) as unknown as Client;
}
