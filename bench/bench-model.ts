import { z } from 'zod';
import type {
  ModelCallOptions,
  ModelClient,
  ModelPart,
  ModelRequest,
  Tool,
  ToolExecutionContext,
} from '../src/index.js';
import { muster } from './muster.js';

const { tool } = muster;

/** The arguments every benchmark tool call carries, as the model would send them. */
export const ADD_ARGUMENTS_TEXT = '{"a":1,"b":2}';

/** The name of the benchmark's host tool. */
export const ADD_TOOL_NAME = 'add';

/** The Zod input schema of the benchmark's host tool. */
export const addInput = z.object({ a: z.number(), b: z.number() });

/** The body of the benchmark's host tool: as cheap as a tool can be. */
export function addNumbers({ a, b }: { a: number; b: number }): string {
  return String(a + b);
}

/** A trivial host tool made with `tool()` and Zod, as a user would write it. */
export function makeAddTool(): Tool {
  return tool({
    name: ADD_TOOL_NAME,
    description: 'Adds two numbers.',
    input: addInput,
    execute: addNumbers,
  });
}

/** A tool execution context for calling a tool's `execute` directly, outside any pipeline. */
export function directToolContext(signal: AbortSignal): ToolExecutionContext {
  return {
    signal,
    sessionId: 'bench-session',
    runId: 'bench-run',
    callId: 'call_1',
    iteration: 1,
    maxResultBytes: 2_097_152,
    reportProgress: () => undefined,
  };
}

const USAGE = Object.freeze({ inputTokens: 10, outputTokens: 2, totalTokens: 12 });

function toolTurn(index: number): readonly ModelPart[] {
  return Object.freeze([
    {
      type: 'tool-call',
      callId: `call_${index + 1}`,
      name: ADD_TOOL_NAME,
      argumentsText: ADD_ARGUMENTS_TEXT,
    },
    { type: 'finish', stopReason: 'tool-calls', usage: USAGE },
  ]);
}

const FINAL_TURN: readonly ModelPart[] = Object.freeze([
  { type: 'text-delta', text: 'Done.' },
  { type: 'finish', stopReason: 'stop', usage: USAGE },
]);

async function* play(parts: readonly ModelPart[]): AsyncGenerator<ModelPart> {
  for (const part of parts) yield part;
}

/**
 * A near-zero-cost model for benchmarks: it replays pre-built parts and never looks at the
 * request. Runs last `turnsPerRun` turns: every turn but the last calls the `add` tool once,
 * and the last answers with one text delta. Runs must go one after another and each must
 * complete, so that the turn counter stays aligned with run boundaries.
 */
export class BenchModel implements ModelClient {
  readonly specificationVersion = 'muster-model-v1' as const;
  readonly provider = 'bench';
  readonly defaultModelName = 'bench';
  readonly #turns: readonly (readonly ModelPart[])[];
  #next = 0;

  constructor(readonly turnsPerRun: number) {
    if (!Number.isSafeInteger(turnsPerRun) || turnsPerRun < 1)
      throw new RangeError('turnsPerRun must be a positive integer');
    this.#turns = Array.from({ length: turnsPerRun }, (_, i) =>
      i === turnsPerRun - 1 ? FINAL_TURN : toolTurn(i),
    );
  }

  generate(_request: ModelRequest, _options: ModelCallOptions): AsyncIterable<ModelPart> {
    const turn = this.#turns[this.#next]!;
    this.#next = (this.#next + 1) % this.turnsPerRun;
    return play(turn);
  }

  /** Starts the next run at its first turn (after a failed run, for example). */
  reset(): void {
    this.#next = 0;
  }
}
