import type { AgentEvent, ModelRequest } from '../src/index.js';
import { ADD_TOOL_NAME, BenchModel, addNumbers, makeAddTool } from './bench-model.js';
import { summarize } from './stats.js';
import type { Summary } from './stats.js';
import { muster } from './muster.js';

const { createAgent } = muster;

/** One run shape to measure. */
export interface LoopConfig {
  /** Model turns per run; every turn but the last calls one host tool. */
  readonly turns: number;
  /** Passed to `agent.run({ stream })`. */
  readonly stream: boolean;
}

/** How many runs each configuration makes. */
export interface LoopOverheadOptions {
  readonly warmupRuns: number;
  readonly sampleRuns: number;
}

/** Timings of one configuration, in milliseconds. */
export interface LoopOverheadResult {
  readonly config: LoopConfig;
  /** `agent.run()` end to end, per run. */
  readonly runMs: Summary;
  /** The bare model iterations plus direct tool calls a run makes, per run. */
  readonly baselineMs: Summary;
  /** (run - baseline) / turns, paired sample by sample: Muster's own cost per model turn. */
  readonly overheadPerTurnMs: Summary;
  /** run - baseline, per run. */
  readonly overheadPerRunMs: Summary;
  /** Events one run yields. */
  readonly eventsPerRun: number;
}

interface LoopCase {
  /** Times one baseline and one run, then deletes the run's session (untimed). */
  sample(): Promise<{ runMs: number; baselineMs: number }>;
  readonly eventsPerRun: () => number;
  close(): Promise<void>;
}

function createLoopCase({ turns, stream }: LoopConfig): LoopCase {
  const agent = createAgent({
    model: new BenchModel(turns),
    tools: [makeAddTool()],
    policy: { allow: [ADD_TOOL_NAME] },
    limits: { maxIterations: turns + 1 },
  });
  const baselineModel = new BenchModel(turns);
  const signal = new AbortController().signal;
  const request: ModelRequest = {
    modelName: 'bench',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Add 1 and 2, repeatedly.' }] }],
    tools: [],
    stream,
  };
  let events = 0;

  const baseline = async (): Promise<number> => {
    let parts = 0;
    let sums = 0;
    const start = performance.now();
    for (let t = 0; t < turns; t++) {
      for await (const _part of baselineModel.generate(request, { signal })) parts++;
      if (t < turns - 1 && addNumbers({ a: 1, b: 2 }) === '3') sums++;
    }
    const ms = performance.now() - start;
    if (parts !== 2 * turns || sums !== turns - 1)
      throw new Error(`bench baseline drained ${parts} parts and ${sums} tool calls`);
    return ms;
  };
  const run = async (): Promise<{ ms: number; sessionId: string }> => {
    let last: AgentEvent | undefined;
    let sessionId = '';
    let count = 0;
    const start = performance.now();
    for await (const ev of agent.run({ input: 'Add 1 and 2, repeatedly.', stream })) {
      if (ev.type === 'session.started') sessionId = ev.sessionId;
      last = ev;
      count++;
    }
    const ms = performance.now() - start;
    if (last?.type !== 'session.completed' || last.iterations !== turns)
      throw new Error(`bench run did not complete in ${turns} turns (last event ${last?.type})`);
    events = count;
    return { ms, sessionId };
  };

  return {
    async sample() {
      const baselineMs = await baseline();
      const { ms, sessionId } = await run();
      await agent.sessions.delete(sessionId);
      return { runMs: ms, baselineMs };
    },
    eventsPerRun: () => events,
    close: () => agent.close(),
  };
}

/**
 * Measures the agent loop's own cost per model turn, for each configuration: runs through
 * `agent.run()` (default `MemorySessionStore`) against a model that replays pre-built parts,
 * minus a paired baseline that drains the same model the same number of times and calls the
 * tool body directly. Configurations are sampled round-robin, so load from other processes
 * spreads over all of them. Each run uses a new session, deleted after it (outside the
 * timing) so the store stays the same size.
 */
export async function measureLoopOverhead(
  configs: readonly LoopConfig[],
  options: LoopOverheadOptions,
): Promise<LoopOverheadResult[]> {
  const cases = configs.map(createLoopCase);
  try {
    for (let i = 0; i < options.warmupRuns; i++) for (const c of cases) await c.sample();
    const runs = cases.map((): number[] => []);
    const baselines = cases.map((): number[] => []);
    for (let i = 0; i < options.sampleRuns; i++) {
      for (const [k, c] of cases.entries()) {
        const { runMs, baselineMs } = await c.sample();
        runs[k]!.push(runMs);
        baselines[k]!.push(baselineMs);
      }
    }
    return configs.map((config, k): LoopOverheadResult => {
      const perRun = runs[k]!.map((ms, i) => ms - baselines[k]![i]!);
      return {
        config,
        runMs: summarize(runs[k]!),
        baselineMs: summarize(baselines[k]!),
        overheadPerTurnMs: summarize(perRun.map((ms) => ms / config.turns)),
        overheadPerRunMs: summarize(perRun),
        eventsPerRun: cases[k]!.eventsPerRun(),
      };
    });
  } finally {
    await Promise.all(cases.map((c) => c.close()));
  }
}
