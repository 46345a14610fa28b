import type { McpServerConfig, StandardSchemaV1Like } from '../src/index.js';
import type { Baseline, BaselineRole, Endpoint, ToolCall } from './mcp-endpoints.js';
import { runScript } from './mcp-model.js';
import { MusterSide, NOOP_TOOL } from './mcp-muster-side.js';
import type { RunMeasure } from './mcp-muster-side.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';

/** How calls are issued: one after another, or `batch` at once (one model turn in Muster). */
export type CallVariant = 'sequential' | 'concurrent';

/** One transport to compare: the baselines, and the same server for Muster. */
export interface CallCaseSpec extends ToolCall {
  readonly label: string;
  /** The raw client (legacy, first), the raw client in `auto`, peers and reference rows. */
  readonly baselines: readonly Baseline[];
  /** The same server as a Muster declaration (registered as `b`). */
  readonly server: McpServerConfig;
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
  /** Run (untimed) every `collectEvery` samples, for example a forced GC. */
  readonly collect?: () => void;
  readonly collectEvery?: number;
}

/** One baseline's figures in one variant. */
export interface BaselineResult {
  readonly label: string;
  readonly role: BaselineRole;
  readonly era: string;
  /** µs per call. */
  readonly us: Summary;
}

/**
 * One variant of one transport, every figure in microseconds per call. Sequential figures are
 * per call (every call timed alone); concurrent ones are a batch's time over the batch.
 */
export interface VariantResult {
  readonly variant: CallVariant;
  readonly baselines: readonly BaselineResult[];
  /** `agent.mcp.callTool(server, tool, args)`: the host's direct call, no model, no pipeline. */
  readonly directUs: Summary;
  /**
   * A full agent tool turn: the pipeline plus the MCP call, from `tool.completed.durationMs`
   * (every call of a sequential run; the longest call of a concurrent turn, over the batch).
   */
  readonly agentUs: Summary;
  /** (run with MCP calls - the same run with the no-op host tool) / batch, paired per sample. */
  readonly mcpPartUs: Summary;
  /** The no-op host tool through the same pipeline (`durationMs`, as for `agentUs`). */
  readonly hostUs: Summary;
  /** Whole `agent.run()` with the MCP calls, in ms per run. */
  readonly runMs: Summary;
  /** The samples behind the summaries, so that several comparisons can be pooled. */
  readonly samples: VariantSampleSet;
}

/** The per-call samples (µs) of one variant, in the order they were taken. */
export interface VariantSampleSet {
  /** One array per baseline, in the order of `CallCaseSpec.baselines`. */
  readonly baselines: readonly (readonly number[])[];
  readonly direct: readonly number[];
  readonly agent: readonly number[];
}

/** One transport's comparison. */
export interface CallComparison {
  readonly label: string;
  readonly batch: number;
  readonly epochs: number;
  /** Wall time of the whole comparison, connects included. */
  readonly seconds: number;
  readonly musterEra: string;
  readonly variants: readonly VariantResult[];
}

/** Times `batch` calls: every call alone (sequential), or the batch at once over `batch`. */
async function timeCalls(
  endpoint: Endpoint,
  batch: number,
  variant: CallVariant,
): Promise<number[]> {
  if (variant === 'sequential') {
    const out: number[] = [];
    for (let i = 0; i < batch; i++) {
      const start = performance.now();
      await endpoint.call();
      out.push((performance.now() - start) * 1000);
    }
    return out;
  }
  const start = performance.now();
  await Promise.all(Array.from({ length: batch }, () => endpoint.call()));
  return [((performance.now() - start) * 1000) / batch];
}

interface VariantSamples {
  readonly baselines: number[][];
  readonly direct: number[];
  readonly agent: number[];
  readonly mcpPart: number[];
  readonly host: number[];
  readonly runMs: number[];
}

interface Epoch {
  readonly baselines: readonly Endpoint[];
  readonly direct: Endpoint;
  readonly muster: MusterSide;
  /** The model-facing name of the measured tool in Muster. */
  readonly name: string;
  readonly musterEra: string;
}

async function openEpoch(spec: CallCaseSpec): Promise<Epoch> {
  const opened: Endpoint[] = [];
  const muster = new MusterSide(spec);
  try {
    for (const b of spec.baselines) opened.push(await b.open());
    const { name, era } = await muster.connect(spec.tool);
    return { baselines: opened, direct: muster.direct(spec, era), muster, name, musterEra: era };
  } catch (err) {
    await Promise.allSettled([muster.close(), ...opened.map((e) => e.close())]);
    throw err;
  }
}

/**
 * Compares one transport: the baselines (raw client legacy and auto, peers) calling the tool,
 * against Muster calling it directly (`agent.mcp.callTool`) and through `agent.run()` (a
 * scripted model asks for the calls), in the same process, sampled round-robin (the order
 * rotates every sample). Samples are split over `epochs`: each opens new clients, a new agent
 * and (for stdio) new server processes, warms up, and is closed before the next, so that one
 * lucky or unlucky process placement does not decide a ratio.
 */
export async function compareCalls(spec: CallCaseSpec): Promise<CallComparison> {
  const started = performance.now();
  const epochs = Math.max(1, spec.epochs ?? 1);
  const argumentsText = JSON.stringify(spec.args);
  const perCall = (m: RunMeasure, variant: CallVariant) =>
    variant === 'sequential'
      ? m.durationsMs.map((ms) => ms * 1000)
      : [(Math.max(...m.durationsMs) * 1000) / spec.batch];
  const samples = spec.variants.map(
    (): VariantSamples => ({
      baselines: spec.baselines.map(() => []),
      direct: [],
      agent: [],
      mcpPart: [],
      host: [],
      runMs: [],
    }),
  );
  let musterEra = '?';
  const eras = spec.baselines.map(() => '?');
  let taken = 0;
  for (let e = 0; e < epochs; e++) {
    const epoch = await openEpoch(spec);
    try {
      musterEra = epoch.musterEra;
      epoch.baselines.forEach((b, i) => (eras[i] = b.era));
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
          let mcpRun: RunMeasure | undefined;
          let hostRun: RunMeasure | undefined;
          let direct: number[] = [];
          const baselineUs: number[][] = epoch.baselines.map(() => []);
          const steps: (() => Promise<void>)[] = [
            async () =>
              void (mcpRun = await epoch.muster.run(script.mcp, spec.batch, spec.checkContent)),
            async () => void (hostRun = await epoch.muster.run(script.host, spec.batch)),
            async () => void (direct = await timeCalls(epoch.direct, spec.batch, variant)),
            ...epoch.baselines.map((b, i) => async () => {
              baselineUs[i] = await timeCalls(b, spec.batch, variant);
            }),
          ];
          for (let i = 0; i < steps.length; i++) await steps[(s + i) % steps.length]!();
          if (s < spec.warmupSamples) continue;
          const out = samples[k]!;
          baselineUs.forEach((us, i) => out.baselines[i]!.push(...us));
          out.direct.push(...direct);
          out.agent.push(...perCall(mcpRun!, variant));
          out.host.push(...perCall(hostRun!, variant));
          out.mcpPart.push(((mcpRun!.wallMs - hostRun!.wallMs) * 1000) / spec.batch);
          out.runMs.push(mcpRun!.wallMs);
        }
      }
    } finally {
      await Promise.allSettled([epoch.muster.close(), ...epoch.baselines.map((b) => b.close())]);
    }
  }
  return {
    label: spec.label,
    batch: spec.batch,
    epochs,
    seconds: (performance.now() - started) / 1000,
    musterEra,
    variants: spec.variants.map((variant, k): VariantResult => {
      const s = samples[k]!;
      return {
        variant,
        baselines: spec.baselines.map((b, i) => ({
          label: b.label,
          role: b.role,
          era: eras[i]!,
          us: summarize(s.baselines[i]!),
        })),
        directUs: summarize(s.direct),
        agentUs: summarize(s.agent),
        mcpPartUs: summarize(s.mcpPart),
        hostUs: summarize(s.host),
        runMs: summarize(s.runMs),
        samples: { baselines: s.baselines, direct: s.direct, agent: s.agent },
      };
    }),
  };
}
