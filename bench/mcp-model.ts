import type {
  Agent,
  ModelCallOptions,
  ModelClient,
  ModelPart,
  ModelRequest,
} from '../src/index.js';

/** One tool call the scripted model asks for: the model-facing name and raw JSON arguments. */
export interface ScriptedCall {
  readonly name: string;
  readonly argumentsText: string;
}

/** The pre-built model turns of one run, the last of which answers with text. */
export type RunScript = readonly (readonly ModelPart[])[];

const USAGE = Object.freeze({ inputTokens: 10, outputTokens: 2, totalTokens: 12 });

const FINAL_TURN: readonly ModelPart[] = Object.freeze([
  { type: 'text-delta', text: 'Done.' },
  { type: 'finish', stopReason: 'stop', usage: USAGE },
]);

/**
 * A run that makes `toolTurns` tool turns of `callsPerTurn` calls each (all to `call`), then
 * answers. `toolTurns: 8, callsPerTurn: 1` makes eight sequential calls; `toolTurns: 1,
 * callsPerTurn: 8` makes eight calls in one turn (concurrent when the tool is read-only).
 */
export function runScript(call: ScriptedCall, toolTurns: number, callsPerTurn: number): RunScript {
  const turns: (readonly ModelPart[])[] = [];
  for (let t = 0; t < toolTurns; t++) {
    const parts: ModelPart[] = [];
    for (let c = 0; c < callsPerTurn; c++) {
      parts.push({
        type: 'tool-call',
        callId: `call_${t + 1}_${c + 1}`,
        name: call.name,
        argumentsText: call.argumentsText,
      });
    }
    parts.push({ type: 'finish', stopReason: 'tool-calls', usage: USAGE });
    turns.push(Object.freeze(parts));
  }
  turns.push(FINAL_TURN);
  return Object.freeze(turns);
}

async function* play(parts: readonly ModelPart[]): AsyncGenerator<ModelPart> {
  for (const part of parts) yield part;
}

/**
 * A near-zero-cost model that replays the script of the current run and never looks at the
 * request. Call {@link ScriptedRunModel.use} before each run; runs must go one at a time.
 */
export class ScriptedRunModel implements ModelClient {
  readonly specificationVersion = 'muster-model-v1' as const;
  readonly provider = 'bench';
  readonly defaultModelName = 'bench';
  #script: RunScript = [FINAL_TURN];
  #next = 0;

  /** Replays `script` from its first turn in the next run. */
  use(script: RunScript): void {
    this.#script = script;
    this.#next = 0;
  }

  generate(_request: ModelRequest, _options: ModelCallOptions): AsyncIterable<ModelPart> {
    const turn = this.#script[this.#next] ?? FINAL_TURN;
    this.#next++;
    return play(turn);
  }
}

/**
 * Runs `script` once on `agent` (whose model is `model`), fails with `what` when a tool call
 * failed, and deletes the run's session, so that a long benchmark keeps no sessions.
 */
export async function playRun(
  agent: Agent,
  model: ScriptedRunModel,
  script: RunScript,
  what: string,
): Promise<void> {
  model.use(script);
  let sessionId = '';
  for await (const ev of agent.run({ input: 'bench', stream: false })) {
    if (ev.type === 'session.started') sessionId = ev.sessionId;
    if (ev.type === 'tool.completed' && ev.isError)
      throw new Error(`${what}: the call failed: ${ev.content}`);
  }
  await agent.sessions.delete(sessionId);
}
