import { EventEmitter, setMaxListeners } from 'node:events';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { startDualHttpServer, stdioConfig } from '../test/support/mcp-fixtures.js';
import type { StdioLaunch } from '../test/support/mcp-fixtures.js';
import { compareCalls } from './mcp-compare.js';
import type { CallComparison } from './mcp-compare.js';
import {
  echoInput,
  inMemoryEcho,
  peerBaselines,
  rawBaseline,
  serveStdioInMemoryEcho,
} from './mcp-endpoints.js';
import type { Baseline, ToolCall } from './mcp-endpoints.js';
import type { PeerClient } from './peers.js';
import { muster } from './muster.js';

const { createSdkMcpServer, sdkTool } = muster;

const ECHO: ToolCall = Object.freeze({ tool: 'echo', args: Object.freeze({ text: 'hello' }) });

/** Sample counts of one comparison (see `CallCaseSpec`). */
export interface SampleCounts {
  readonly warmupSamples: number;
  readonly samples: number;
  readonly epochs?: number;
}

/** What {@link measureMcpCalls} takes. */
export interface McpCallsOptions {
  readonly stdio: SampleCounts;
  readonly http: SampleCounts;
  readonly sdk: SampleCounts;
  readonly big: SampleCounts;
  /** Calls per batch for the echo comparisons (and Muster's calls per turn). Default 8. */
  readonly batch?: number;
  /** A forced GC, run between samples (untimed). */
  readonly collect?: () => void;
  /** The peer clients to measure beside the raw client (none when not installed). */
  readonly peers?: readonly PeerClient[];
}

/** The per-call comparisons of the MCP benchmark. */
export interface McpCallsResult {
  readonly stdio: CallComparison;
  readonly http: CallComparison;
  readonly sdk: CallComparison;
  readonly big: CallComparison;
}

/**
 * Per-call cost of Muster against the raw official client (legacy, its default, and `auto`)
 * and the peers, in one process: `echo` over stdio (`basic-server.mjs`), over Streamable HTTP
 * (the in-process dual fixture), in process (`createSdkMcpServer` against a raw `McpServer` on
 * an in-memory pair), and a 1 MiB result (`big-result-server.mjs`, archived by Muster). Every
 * client, agent and server is closed.
 */
export async function measureMcpCalls(options: McpCallsOptions): Promise<McpCallsResult> {
  // A concurrent turn of 8 MCP calls puts up to 16 abort listeners on the run's signal, and
  // Node warns above 10 per signal.
  const previousMaxListeners = EventEmitter.defaultMaxListeners;
  setMaxListeners(Math.max(previousMaxListeners, 64));
  try {
    return await measureAll(options);
  } finally {
    setMaxListeners(previousMaxListeners);
  }
}

function stdioBaselines(
  launch: StdioLaunch,
  call: ToolCall,
  peers: readonly PeerClient[] | undefined,
): Baseline[] {
  return [
    rawBaseline('legacy', call, () => new StdioClientTransport(launch)),
    rawBaseline('auto', call, () => new StdioClientTransport(launch)),
    ...peerBaselines(peers, call, 'stdio', async () => ({
      target: { kind: 'stdio', command: launch.command, args: launch.args },
      close: async () => undefined,
    })),
  ];
}

async function measureAll(options: McpCallsOptions): Promise<McpCallsResult> {
  const batch = options.batch ?? 8;
  const collect = options.collect ? { collect: options.collect, collectEvery: 10 } : {};
  const echo = {
    ...ECHO,
    hostInput: echoInput,
    batch,
    variants: ['sequential', 'concurrent'] as const,
    ...collect,
  };

  const basic = stdioConfig('basic-server.mjs');
  const stdio = await compareCalls({
    ...echo,
    ...options.stdio,
    label: 'stdio (basic-server.mjs)',
    baselines: stdioBaselines(basic, ECHO, options.peers),
    server: basic,
    checkContent: (c) => c === 'default: hello',
  });

  const httpServer = await startDualHttpServer();
  let http: CallComparison;
  try {
    const url = new URL(httpServer.url);
    http = await compareCalls({
      ...echo,
      ...options.http,
      label: 'Streamable HTTP (dual fixture)',
      baselines: [
        rawBaseline('legacy', ECHO, () => new StreamableHTTPClientTransport(url)),
        rawBaseline('auto', ECHO, () => new StreamableHTTPClientTransport(url)),
        ...peerBaselines(options.peers, ECHO, 'http', async () => ({
          target: { kind: 'http', url: httpServer.url },
          close: async () => undefined,
        })),
      ],
      server: { type: 'http', url: httpServer.url },
      checkContent: (c) => c === 'hello',
    });
  } finally {
    await httpServer.close();
  }

  const sdkServer = createSdkMcpServer({
    name: 'bench-sdk',
    tools: [
      sdkTool(
        'echo',
        'Echoes the text back.',
        { text: z.string() },
        ({ text }: { text: string }) => ({ content: [{ type: 'text', text }] }),
        { annotations: { readOnlyHint: true } },
      ),
    ],
  });
  const sdk = await compareCalls({
    ...echo,
    ...options.sdk,
    label: 'in process (sdk vs raw in-memory)',
    baselines: [
      rawBaseline('legacy', ECHO, inMemoryEcho),
      rawBaseline('auto', ECHO, inMemoryEcho),
      rawBaseline(
        'legacy',
        ECHO,
        async () => serveStdioInMemoryEcho(),
        'ref: raw client, serveStdio in memory',
        'ref',
      ),
      ...peerBaselines(options.peers, ECHO, 'transport', async () => {
        const { transport, close } = await inMemoryEcho();
        return { target: { kind: 'transport', transport }, close };
      }),
    ],
    server: { type: 'sdk', server: sdkServer },
    checkContent: (c) => c === 'hello',
  });

  const bigServer = stdioConfig('big-result-server.mjs');
  const bigCall: ToolCall = { tool: 'big', args: { kib: 1024 } };
  const big = await compareCalls({
    ...bigCall,
    ...options.big,
    ...collect,
    label: 'a 1 MiB result (big-result-server.mjs)',
    baselines: [
      rawBaseline('legacy', bigCall, () => new StdioClientTransport(bigServer)),
      rawBaseline('auto', bigCall, () => new StdioClientTransport(bigServer)),
    ],
    server: bigServer,
    hostInput: z.object({ kib: z.number() }),
    batch: 1,
    variants: ['sequential'],
    checkContent: (c) => c.includes('[archived: ref='),
  });

  return { stdio, http, sdk, big };
}
