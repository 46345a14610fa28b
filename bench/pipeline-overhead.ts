// the pipeline itself is internal: the bench measures it through its folder's face
import type { ToolCallEnvironment, ToolCallRequest } from '../src/tools/index.js';
import type {
  ToolDefinition,
  ToolExecutionContext,
  ToolExecutor,
  ToolReturn,
} from '../src/index.js';
import {
  ADD_ARGUMENTS_TEXT,
  ADD_TOOL_NAME,
  addInput,
  addNumbers,
  directToolContext,
  makeAddTool,
} from './bench-model.js';
import { elapsedNs, scaleSummary, summarize } from './stats.js';
import type { Summary } from './stats.js';
import { muster, musterTools } from './muster.js';

const { DEFAULT_LIMITS, HostToolExecutor, ToolCatalog, ToolPolicy } = muster;
const { runToolCall } = musterTools;

/** How many calls each case makes. */
export interface PipelineOverheadOptions {
  readonly warmupCalls: number;
  /** Each sample times one batch of calls and divides by its size. */
  readonly batchSize: number;
  readonly samples: number;
}

/** One measured way of calling the tool, in microseconds per call. */
export interface PipelineCase {
  readonly label: string;
  readonly perCallUs: Summary;
}

/** Every case, plus the overheads derived from their medians. */
export interface PipelineOverheadResult {
  readonly cases: readonly PipelineCase[];
  /** Median of `runToolCall` (allow) minus median of the direct call, in µs. */
  readonly allowOverheadUs: number;
  /** Median of `runToolCall` with one no-op beforeTool and afterTool hook minus direct, in µs. */
  readonly hooksOverheadUs: number;
  /** Median of `runToolCall` on a JSON-Schema-only executor (ajv) minus its direct call, in µs. */
  readonly jsonSchemaOverheadUs: number;
  /** Median of `runToolCall` (allow) with an `AbortSignal.any` signal, as runs use, minus direct. */
  readonly anySignalOverheadUs: number;
  /** Events the pipeline emitted per call (tool.decision, tool.called, tool.completed). */
  readonly eventsPerCall: number;
}

const JSON_SCHEMA_TOOL: ToolDefinition = Object.freeze({
  name: ADD_TOOL_NAME,
  description: 'Adds two numbers.',
  inputSchema: Object.freeze({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  }),
});

/** An executor with only a JSON Schema, so the pipeline validates with ajv. */
class JsonSchemaExecutor implements ToolExecutor {
  listTools(): readonly ToolDefinition[] {
    return [JSON_SCHEMA_TOOL];
  }

  async execute(
    _name: string,
    input: Record<string, unknown>,
    _ctx: ToolExecutionContext,
  ): Promise<ToolReturn> {
    return addNumbers(input as { a: number; b: number });
  }
}

interface CallCase {
  readonly label: string;
  readonly call: () => Promise<unknown>;
  readonly batchSize: number;
}

/** Warms every case up, then times batches round-robin so outside load spreads evenly. */
async function timeCases(
  cases: readonly CallCase[],
  options: PipelineOverheadOptions,
): Promise<PipelineCase[]> {
  for (const c of cases) for (let i = 0; i < options.warmupCalls; i++) await c.call();
  const perCallNs = cases.map((): number[] => []);
  for (let s = 0; s < options.samples; s++) {
    for (const [k, c] of cases.entries()) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < c.batchSize; i++) await c.call();
      perCallNs[k]!.push(elapsedNs(start) / c.batchSize);
    }
  }
  return cases.map((c, k) => ({
    label: c.label,
    perCallUs: scaleSummary(summarize(perCallNs[k]!), 1e-3),
  }));
}

/**
 * Measures `runToolCall` around a trivial host tool against calling the tool's `execute`
 * directly: with an allow policy, with a no-op `beforeTool` and `afterTool` hook, for an
 * executor that only has a JSON Schema (validated by ajv), and with an `AbortSignal.any`
 * signal as `agent.run()` passes (the other cases use a plain `AbortController` signal).
 */
export async function measurePipelineOverhead(
  options: PipelineOverheadOptions,
): Promise<PipelineOverheadResult> {
  const addTool = makeAddTool();
  const jsonExecutor = new JsonSchemaExecutor();
  const hostCatalog = await ToolCatalog.build([new HostToolExecutor([addTool])]);
  const jsonCatalog = await ToolCatalog.build([jsonExecutor]);
  const policy = new ToolPolicy({ allow: [ADD_TOOL_NAME] });
  const signal = new AbortController().signal;
  let events = 0;
  const base: ToolCallEnvironment = {
    sessionId: 'bench-session',
    runId: 'bench-run',
    signal,
    catalog: hostCatalog,
    policy,
    beforeTool: [],
    afterTool: [],
    maxToolArgumentBytes: DEFAULT_LIMITS.maxToolArgumentBytes,
    maxToolArgumentDepth: DEFAULT_LIMITS.maxToolArgumentDepth,
    maxToolResultBytes: DEFAULT_LIMITS.maxToolResultBytes,
    emit: () => void events++,
  };
  const withHooks: ToolCallEnvironment = {
    ...base,
    beforeTool: [() => undefined],
    afterTool: [() => undefined],
  };
  const withJsonSchema: ToolCallEnvironment = { ...base, catalog: jsonCatalog };
  // agent.run() hands the pipeline a signal made by AbortSignal.any (run, agent, caller).
  const runControllers = [new AbortController(), new AbortController()];
  const withAnySignal: ToolCallEnvironment = {
    ...base,
    signal: AbortSignal.any(runControllers.map((c) => c.signal)),
  };
  const request: ToolCallRequest = {
    callId: 'call_1',
    name: ADD_TOOL_NAME,
    argumentsText: ADD_ARGUMENTS_TEXT,
    iteration: 1,
  };
  const ctx = directToolContext(signal);
  const args = { a: 1, b: 2 };

  const check = async (env: ToolCallEnvironment) => {
    const outcome = await runToolCall(request, env);
    if (!outcome.executed || outcome.result.content !== '3')
      throw new Error(`bench tool call failed: ${outcome.result.content}`);
  };
  await check(base);
  await check(withHooks);
  await check(withJsonSchema);
  await check(withAnySignal);

  events = 0;
  const directBatch = options.batchSize * 10;
  const pipelineBatch = options.batchSize;
  const cases = await timeCases(
    [
      {
        label: 'direct: tool.execute(args)',
        call: async () => addTool.execute(args as never, ctx),
        batchSize: directBatch,
      },
      {
        label: 'direct: JSON.parse + zod + execute',
        call: async () => {
          const parsed = addInput.safeParse(JSON.parse(ADD_ARGUMENTS_TEXT));
          if (!parsed.success) throw parsed.error;
          return addTool.execute(parsed.data as never, ctx);
        },
        batchSize: directBatch,
      },
      {
        label: 'direct: json executor.execute',
        call: () => jsonExecutor.execute(ADD_TOOL_NAME, args, ctx),
        batchSize: directBatch,
      },
      {
        label: 'runToolCall, allow',
        call: () => runToolCall(request, base),
        batchSize: pipelineBatch,
      },
      {
        label: 'runToolCall, allow + before/after hook',
        call: () => runToolCall(request, withHooks),
        batchSize: pipelineBatch,
      },
      {
        label: 'runToolCall, allow, JSON Schema (ajv)',
        call: () => runToolCall(request, withJsonSchema),
        batchSize: pipelineBatch,
      },
      {
        label: 'runToolCall, allow, AbortSignal.any signal',
        call: () => runToolCall(request, withAnySignal),
        batchSize: pipelineBatch,
      },
    ],
    options,
  );
  const [direct, , directJson, allow, hooks, json, anySignal] = cases.map(
    (c) => c.perCallUs.median,
  );
  const eventsPerCall = events / (4 * (options.warmupCalls + pipelineBatch * options.samples));

  return {
    cases,
    allowOverheadUs: allow! - direct!,
    hooksOverheadUs: hooks! - direct!,
    jsonSchemaOverheadUs: json! - directJson!,
    anySignalOverheadUs: anySignal! - direct!,
    eventsPerCall,
  };
}
