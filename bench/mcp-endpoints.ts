import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import type { PeerClient, PeerTarget } from './peers.js';

/** The client identity of every raw client in this benchmark. */
export const RAW_CLIENT_INFO = Object.freeze({ name: 'muster-bench-raw', version: '0.0.0' });

/** One connected caller of the measured tool: a raw client, a peer, or Muster's direct API. */
export interface Endpoint {
  /** The protocol era it negotiated (`?` when it cannot tell). */
  readonly era: string;
  /** One call of the measured tool; throws when the call reports an error. */
  call(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a baseline is for: `raw` is the raw official client in its default (legacy) mode, the
 * reference of every ratio; `raw-auto` the same client with `versionNegotiation: auto`; `peer`
 * another library (the best peer is printed beside the raw ratios); `ref` a row for reference.
 */
export type BaselineRole = 'raw' | 'raw-auto' | 'peer' | 'ref';

/** A caller to open afresh in every epoch. */
export interface Baseline {
  readonly label: string;
  readonly role: BaselineRole;
  open(): Promise<Endpoint>;
}

/** The measured tool and its arguments. */
export interface ToolCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

function failed(result: unknown): boolean {
  return (result as { isError?: boolean } | undefined)?.isError === true;
}

/**
 * A raw official client over a new transport from `transport()`: `legacy` builds it with no
 * `versionNegotiation` option at all (the client's default), `auto` with `mode: 'auto'`.
 */
export function rawBaseline(
  mode: 'legacy' | 'auto',
  call: ToolCall,
  transport: () => Transport | Promise<{ transport: Transport; close: () => Promise<void> }>,
  label = mode === 'legacy' ? 'raw client, default' : 'raw client, auto',
  role: BaselineRole = mode === 'legacy' ? 'raw' : 'raw-auto',
): Baseline {
  return {
    label,
    role,
    async open() {
      const made = await transport();
      const [link, onClose] =
        'transport' in made ? [made.transport, made.close] : [made, async () => undefined];
      const client =
        mode === 'legacy'
          ? new Client(RAW_CLIENT_INFO)
          : new Client(RAW_CLIENT_INFO, { versionNegotiation: { mode: 'auto' } });
      await client.connect(link);
      const params = { name: call.tool, arguments: { ...call.args } };
      return {
        era: client.getProtocolEra() ?? '?',
        async call() {
          const result = await client.callTool(params);
          if (failed(result))
            throw new Error(`raw bench call failed: ${JSON.stringify(result).slice(0, 200)}`);
        },
        async close() {
          await client.close();
          await onClose();
        },
      };
    },
  };
}

/** Every peer that can reach `target`, as baselines (none when the peers are not installed). */
export function peerBaselines(
  peers: readonly PeerClient[] | undefined,
  call: ToolCall,
  target: PeerTarget['kind'],
  open: () => Promise<{ target: PeerTarget; close: () => Promise<void> }>,
): Baseline[] {
  return (peers ?? [])
    .filter((p) => p.targets.includes(target))
    .map(
      (peer): Baseline => ({
        label: `peer: ${peer.label}`,
        role: 'peer',
        async open() {
          const made = await open();
          const endpoint = await peer.open(made.target, call.tool, call.args);
          return {
            era: 'legacy',
            call: () => endpoint.call(),
            async close() {
              await endpoint.close();
              await made.close();
            },
          };
        },
      }),
    );
}

/** The input schema of `echo`. */
export const echoInput = z.object({ text: z.string() });

/** The official `McpServer` with one tool, `echo {text}` (read-only). */
export function echoServer(): McpServer {
  const server = new McpServer(
    { name: 'bench-in-memory', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.registerTool(
    'echo',
    {
      description: 'Echoes the text back.',
      inputSchema: echoInput,
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

/** A client-side in-memory transport linked to a new `echoServer()` with `server.connect()`. */
export async function inMemoryEcho(): Promise<{
  transport: Transport;
  close: () => Promise<void>;
}> {
  const server = echoServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { transport: clientSide, close: () => server.close() };
}

/**
 * A client-side in-memory transport linked to `echoServer` served by `serveStdio` (both eras),
 * which is how Muster links an in-process `sdk` server over a transport.
 */
export function serveStdioInMemoryEcho(): {
  transport: Transport;
  close: () => Promise<void>;
} {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(echoServer, { transport: serverSide });
  return { transport: clientSide, close: async () => void (await handle.close()) };
}
