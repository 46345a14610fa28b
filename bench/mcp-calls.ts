import { EventEmitter, setMaxListeners } from 'node:events';
import {
  Client,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { createAgent, createSdkMcpServer, sdkTool, tool } from '../src/index.js';
import type { Agent, McpServerConfig, StandardSchemaV1Like } from '../src/index.js';
import { startDualHttpServer, stdioConfig } from '../test/support/mcp-fixtures.js';
import { runScript, ScriptedRunModel } from './mcp-model.js';
import type { RunScript } from './mcp-model.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

/** The client identity of every raw client in this benchmark. */
export const RAW_CLIENT_INFO = Object.freeze({ name: 'muster-bench-raw', version: '0.0.0' });

/** The registry name of the measured server in every Muster agent here. */
const SERVER = 'b';
/** The host tool that does nothing, run through the same pipeline as the baseline. */
const NOOP_TOOL = 'bench_noop';

/** How calls are issued: one after another, or `batch` at once (one model turn in Muster). */
export type CallVariant = 'sequential' | 'concurrent';

/** A raw official client connected to the measured server, and how to tear both down. */
export interface RawEndpoint {
  readonly client: Client;
  close(): Promise<void>;
}

/** One transport to compare: how the raw client connects, and the same server for Muster. */
export interface CallCaseSpec {
  readonly label: string;
  readonly openRaw: () => Promise<RawEndpoint>;
  /** The same server as a Muster declaration (registered as `b`). */
  readonly server: McpServerConfig;
  /** The tool's name on the server. */
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  /** The input schema of the no-op host tool (accepts `args`). */
  readonly hostInput: StandardSchemaV1Like;
  /** Checks the content Muster reports for one call (`tool.completed`). */
  readonly checkContent: (content: string) => boolean;
  /** Calls per measured batch: the divisor of every per-call figure. */
  readonly batch: number;
  readonly variants: readonly CallVariant[];
  /** Untimed samples at the start of every epoch. */
  readonly warmupSamples: number;
  /** Timed samples in all, spread evenly over the epochs. */
  readonly samples: number;
  /** How many times to open everything afresh (new clients, agent, processes). Default 1. */
  readonly epochs?: number;
  /** More raw clients to time the same way (another era or server setup), for reference. */
  readonly referenceRaw?: readonly {
    readonly label: string;
    readonly open: () => Promise<RawEndpoint>;
  }[];
  /** Run (untimed) every `collectEvery` samples, for example a forced GC. */
  readonly collect?: () => void;
  readonly collectEvery?: number;
}

/** One variant of one transport, every figure in microseconds per call. */
export interface VariantResult {
  readonly variant: CallVariant;
  /** The raw client's `callTool`, per call (batch time / batch). */
  readonly rawUs: Summary;
  /**
   * Muster's whole tool pipeline plus the MCP call, from `tool.completed.durationMs`:
   * the sum over a sequential run, the longest call of a concurrent turn, over the batch.
   */
  readonly musterUs: Summary;
  /** (run with MCP calls - the same run with the no-op host tool) / batch, paired per sample. */
  readonly mcpPartUs: Summary;
  /** The no-op host tool through the same pipeline (`durationMs`, as for `musterUs`). */
  readonly hostUs: Summary;
  /** Whole `agent.run()` with the MCP calls, in ms per run. */
  readonly runMs: Summary;
  /** Median of `musterUs` over median of `rawUs`. */
  readonly ratio: number;
  /** Median of `mcpPartUs` over median of `rawUs`. */
  readonly mcpPartRatio: number;
  /** The reference raw clients, per call, in the order of `CallCaseSpec.referenceRaw`. */
  readonly referenceUs: readonly {
    readonly label: string;
    readonly era: string;
    readonly us: Summary;
  }[];
}

/** One transport's comparison. */
export interface CallComparison {
  readonly label: string;
  readonly batch: number;
  readonly epochs: number;
  /** Wall time of the whole comparison, connects included. */
  readonly seconds: number;
  readonly rawEra: string;
  readonly musterEra: string;
  readonly variants: readonly VariantResult[];
}

/** What one measured Muster run reports. */
interface RunMeasure {
  readonly wallMs: number;
  /** `tool.completed.durationMs` of every call, in order. */
  readonly durationsMs: readonly number[];
}

/** An agent with the measured server `b` and a no-op host tool, connected and ready. */
class MusterSide {
  readonly model = new ScriptedRunModel();
  readonly agent: Agent;
  #contentChecked = false;

  constructor(
    spec: CallCaseSpec,
    readonly maxCalls: number,
  ) {
    this.agent = createAgent({
      model: this.model,
      tools: [
        tool({
          name: NOOP_TOOL,
          description: 'Does nothing.',
          input: spec.hostInput,
          annotations: { readOnlyHint: true },
          execute: () => 'ok',
        }),
      ],
      mcp: { strictConfig: true },
      mcpServers: { [SERVER]: spec.server },
      policy: { allow: ['mcp_connect:*', 'mcp__*', NOOP_TOOL] },
      limits: { maxToolCallsPerTurn: maxCalls, maxIterations: maxCalls + 1 },
    });
  }

  /** Connects, and returns the model-facing name of `tool` and the era. */
  async connect(originalName: string): Promise<{ name: string; era: string }> {
    await this.agent.initialize();
    const status = this.agent.mcp.list().find((s) => s.name === SERVER);
    if (status?.status !== 'connected')
      throw new Error(`bench server did not connect: ${status?.error?.message ?? status?.status}`);
    const name = status.tools.find((t) => t.originalName === originalName)?.name;
    if (name === undefined) throw new Error(`bench server has no tool '${originalName}'`);
    return { name, era: status.era ?? '?' };
  }

  /** One run of `script`, timed from the first pull to the last event; its session is deleted. */
  async run(
    script: RunScript,
    expectedCalls: number,
    check?: (content: string) => boolean,
  ): Promise<RunMeasure> {
    this.model.use(script);
    const durationsMs: number[] = [];
    let sessionId = '';
    let completed = false;
    let failure: string | undefined;
    const start = performance.now();
    for await (const ev of this.agent.run({ input: 'bench', stream: false })) {
      if (ev.type === 'tool.completed') {
        durationsMs.push(ev.durationMs);
        if (ev.isError) failure ??= ev.content;
        else if (check && !this.#contentChecked && !check(ev.content))
          failure ??= `unexpected content: ${ev.content.slice(0, 200)}`;
      } else if (ev.type === 'session.started') sessionId = ev.sessionId;
      else if (ev.type === 'session.completed') completed = true;
    }
    const wallMs = performance.now() - start;
    await this.agent.sessions.delete(sessionId);
    if (failure !== undefined) throw new Error(`bench tool call failed: ${failure}`);
    if (!completed || durationsMs.length !== expectedCalls)
      throw new Error(`bench run made ${durationsMs.length} of ${expectedCalls} calls`);
    if (check) this.#contentChecked = true;
    return { wallMs, durationsMs };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** Times `batch` raw calls, one after another or all at once; returns µs per call. */
async function rawBatch(
  client: Client,
  params: { name: string; arguments: Record<string, unknown> },
  batch: number,
  variant: CallVariant,
): Promise<number> {
  const results: unknown[] = [];
  const start = performance.now();
  if (variant === 'sequential') {
    for (let i = 0; i < batch; i++) results.push(await client.callTool(params));
  } else {
    results.push(
      ...(await Promise.all(Array.from({ length: batch }, () => client.callTool(params)))),
    );
  }
  const us = ((performance.now() - start) * 1000) / batch;
  for (const r of results) {
    if ((r as { isError?: boolean }).isError === true)
      throw new Error(`raw bench call failed: ${JSON.stringify(r).slice(0, 200)}`);
  }
  return us;
}

interface VariantSamples {
  readonly raw: number[];
  readonly muster: number[];
  readonly mcpPart: number[];
  readonly host: number[];
  readonly runMs: number[];
  readonly reference: number[][];
}

/** The clients and the agent of one epoch, connected. */
interface Epoch {
  readonly raw: RawEndpoint;
  readonly references: readonly { readonly label: string; readonly endpoint: RawEndpoint }[];
  readonly muster: MusterSide;
  /** The model-facing name of the measured tool in Muster. */
  readonly name: string;
  readonly musterEra: string;
}

/** Opens the raw client, the reference clients and a connected agent; closes all on failure. */
async function openEpoch(spec: CallCaseSpec): Promise<Epoch> {
  const opened: RawEndpoint[] = [];
  const muster = new MusterSide(spec, spec.batch);
  try {
    const raw = await spec.openRaw();
    opened.push(raw);
    const references = [];
    for (const r of spec.referenceRaw ?? []) {
      const endpoint = await r.open();
      opened.push(endpoint);
      references.push({ label: r.label, endpoint });
    }
    const { name, era } = await muster.connect(spec.tool);
    return { raw, references, muster, name, musterEra: era };
  } catch (err) {
    await closeEpoch({ opened, muster });
    throw err;
  }
}

async function closeEpoch(parts: {
  opened: readonly RawEndpoint[];
  muster: MusterSide;
}): Promise<void> {
  await Promise.allSettled([parts.muster.close(), ...parts.opened.map((e) => e.close())]);
}

/**
 * Compares one transport: the raw client calling the tool against Muster calling it through
 * `agent.run()` (a scripted model asks for the calls), in the same process, sampled
 * round-robin (raw, Muster, host baseline, reference clients; the order rotates every sample).
 * Samples are split over `epochs`: each opens new clients, a new agent and (for stdio) new
 * server processes, warms up, and is closed before the next, so that one lucky or unlucky
 * process placement does not decide a ratio.
 */
export async function compareCalls(spec: CallCaseSpec): Promise<CallComparison> {
  const started = performance.now();
  const epochs = Math.max(1, spec.epochs ?? 1);
  const argumentsText = JSON.stringify(spec.args);
  const params = { name: spec.tool, arguments: { ...spec.args } };
  const perCall = (m: RunMeasure, variant: CallVariant) =>
    ((variant === 'sequential'
      ? m.durationsMs.reduce((a, b) => a + b, 0)
      : Math.max(...m.durationsMs)) *
      1000) /
    spec.batch;
  const samples = spec.variants.map(
    (): VariantSamples => ({
      raw: [],
      muster: [],
      mcpPart: [],
      host: [],
      runMs: [],
      reference: (spec.referenceRaw ?? []).map(() => []),
    }),
  );
  let rawEra = '?';
  let musterEra = '?';
  const referenceEras = (spec.referenceRaw ?? []).map(() => '?');
  let taken = 0;
  for (let e = 0; e < epochs; e++) {
    const epoch = await openEpoch(spec);
    try {
      rawEra = epoch.raw.client.getProtocolEra() ?? '?';
      musterEra = epoch.musterEra;
      epoch.references.forEach(
        (r, i) => (referenceEras[i] = r.endpoint.client.getProtocolEra() ?? '?'),
      );
      const scripts = spec.variants.map((variant) => {
        const [turns, perTurn] = variant === 'sequential' ? [spec.batch, 1] : [1, spec.batch];
        return {
          variant,
          mcp: runScript({ name: epoch.name, argumentsText }, turns, perTurn),
          host: runScript({ name: NOOP_TOOL, argumentsText }, turns, perTurn),
        };
      });
      const wanted = Math.round((spec.samples * (e + 1)) / epochs) - taken;
      taken += wanted;
      const total = spec.warmupSamples + wanted;
      for (let s = 0; s < total; s++) {
        if (spec.collect && s % (spec.collectEvery ?? 10) === 0) spec.collect();
        for (const [k, script] of scripts.entries()) {
          const { variant } = script;
          let rawUs = 0;
          let mcpRun: RunMeasure | undefined;
          let hostRun: RunMeasure | undefined;
          const referenceUs = epoch.references.map(() => 0);
          const steps: (() => Promise<void>)[] = [
            async () =>
              void (rawUs = await rawBatch(epoch.raw.client, params, spec.batch, variant)),
            async () =>
              void (mcpRun = await epoch.muster.run(script.mcp, spec.batch, spec.checkContent)),
            async () => void (hostRun = await epoch.muster.run(script.host, spec.batch)),
            ...epoch.references.map((r, i) => async () => {
              referenceUs[i] = await rawBatch(r.endpoint.client, params, spec.batch, variant);
            }),
          ];
          for (let i = 0; i < steps.length; i++) await steps[(s + i) % steps.length]!();
          if (s < spec.warmupSamples) continue;
          const out = samples[k]!;
          out.raw.push(rawUs);
          out.muster.push(perCall(mcpRun!, variant));
          out.host.push(perCall(hostRun!, variant));
          out.mcpPart.push(((mcpRun!.wallMs - hostRun!.wallMs) * 1000) / spec.batch);
          out.runMs.push(mcpRun!.wallMs);
          referenceUs.forEach((us, i) => out.reference[i]!.push(us));
        }
      }
    } finally {
      await closeEpoch({
        opened: [epoch.raw, ...epoch.references.map((r) => r.endpoint)],
        muster: epoch.muster,
      });
    }
  }
  return {
    label: spec.label,
    batch: spec.batch,
    epochs,
    seconds: (performance.now() - started) / 1000,
    rawEra,
    musterEra,
    variants: spec.variants.map((variant, k): VariantResult => {
      const s = samples[k]!;
      const rawUs = summarize(s.raw);
      const musterUs = summarize(s.muster);
      const mcpPartUs = summarize(s.mcpPart);
      return {
        variant,
        rawUs,
        musterUs,
        mcpPartUs,
        hostUs: summarize(s.host),
        runMs: summarize(s.runMs),
        ratio: musterUs.median / rawUs.median,
        mcpPartRatio: mcpPartUs.median / rawUs.median,
        referenceUs: (spec.referenceRaw ?? []).map((r, i) => ({
          label: r.label,
          era: referenceEras[i]!,
          us: summarize(s.reference[i]!),
        })),
      };
    }),
  };
}

/**
 * A raw client connected over `transport`, with negotiation `auto` (Muster's default) unless
 * told otherwise.
 */
async function rawClient(
  transport: Transport,
  options: { mode?: 'auto' | 'legacy'; onClose?: () => Promise<void> } = {},
): Promise<RawEndpoint> {
  const client = new Client(RAW_CLIENT_INFO, {
    versionNegotiation: { mode: options.mode ?? 'auto' },
  });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await client.close();
      await options.onClose?.();
    },
  };
}

const echoInput = z.object({ text: z.string() });
const ECHO_ARGS = Object.freeze({ text: 'hello' });

/** Sample counts of one comparison (see {@link CallCaseSpec}). */
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
}

/** Items 1, 2, 3 and 5 of the MCP benchmark. */
export interface McpCallsResult {
  readonly stdio: CallComparison;
  readonly http: CallComparison;
  readonly sdk: CallComparison;
  readonly big: CallComparison;
}

/**
 * Per-call cost of Muster against the raw official client, in one process: `echo` over stdio
 * (`basic-server.mjs`), over Streamable HTTP (the in-process dual fixture), in process
 * (`createSdkMcpServer` against a raw `McpServer` on an in-memory pair), and a 1 MiB result
 * (`big-result-server.mjs`, archived by Muster). Every client, agent and server is closed.
 */
export async function measureMcpCalls(options: McpCallsOptions): Promise<McpCallsResult> {
  // A concurrent turn of 8 MCP calls puts 16 abort listeners on the run's signal (Muster's
  // raceAbort and the client's request each add one), and Node warns above 10 per signal.
  const previousMaxListeners = EventEmitter.defaultMaxListeners;
  setMaxListeners(Math.max(previousMaxListeners, 64));
  try {
    return await measureAll(options);
  } finally {
    setMaxListeners(previousMaxListeners);
  }
}

async function measureAll(options: McpCallsOptions): Promise<McpCallsResult> {
  const batch = options.batch ?? 8;
  const collect = options.collect ? { collect: options.collect, collectEvery: 10 } : {};
  const echo = {
    tool: 'echo',
    args: ECHO_ARGS,
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
    openRaw: () => rawClient(new StdioClientTransport(basic)),
    referenceRaw: [
      {
        label: 'raw client, legacy negotiation',
        open: () => rawClient(new StdioClientTransport(basic), { mode: 'legacy' }),
      },
    ],
    server: basic,
    checkContent: (c) => c === 'default: hello',
  });

  const httpServer = await startDualHttpServer();
  let http: CallComparison;
  try {
    http = await compareCalls({
      ...echo,
      ...options.http,
      label: 'Streamable HTTP (dual fixture)',
      openRaw: () => rawClient(new StreamableHTTPClientTransport(new URL(httpServer.url))),
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
    openRaw: openInMemoryRaw,
    referenceRaw: [{ label: 'raw client, serveStdio in memory', open: openServeStdioInMemoryRaw }],
    server: { type: 'sdk', server: sdkServer },
    checkContent: (c) => c === 'hello',
  });

  const bigServer = stdioConfig('big-result-server.mjs');
  const big = await compareCalls({
    ...options.big,
    ...collect,
    label: 'a 1 MiB result (big-result-server.mjs)',
    openRaw: () => rawClient(new StdioClientTransport(bigServer)),
    server: bigServer,
    tool: 'big',
    args: { kib: 1024 },
    hostInput: z.object({ kib: z.number() }),
    batch: 1,
    variants: ['sequential'],
    checkContent: (c) => c.includes('[archived: ref='),
  });

  return { stdio, http, sdk, big };
}

/** The official `McpServer` with one tool, `echo {text}` (read-only). */
function echoServer(): McpServer {
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

/** A raw client and the official `McpServer` linked in memory with `server.connect()`. */
async function openInMemoryRaw(): Promise<RawEndpoint> {
  const server = echoServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return rawClient(clientSide, { onClose: () => server.close() });
}

/**
 * A raw client and the same server served by `serveStdio` over an in-memory pair (both eras),
 * which is how Muster links an in-process `sdk` server.
 */
async function openServeStdioInMemoryRaw(): Promise<RawEndpoint> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const handle = serveStdio(echoServer, { transport: serverSide });
  return rawClient(clientSide, { onClose: () => handle.close() });
}
