import { MusterError, ModelError, abortedError } from '../errors/index.js';
import type {
  ModelCallOptions,
  ModelClientV1,
  ModelPart,
  ModelRequest,
  Usage,
} from './v1/index.js';

/** A tool call a scripted turn makes. `id` defaults to `call_<turn>_<index>`. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: object;
  readonly id?: string;
}

/** One declared model turn. */
export interface ScriptedTurnSpec {
  readonly text?: string;
  /**
   * A typed final answer: streamed as its JSON text (after `text`, if both are given). Give
   * it in the form of `request.output.schema` (a root that is not an object is `{ value }`).
   */
  readonly output?: unknown;
  readonly reasoning?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: Usage;
}

/** A turn, or a function of the request that returns one (for answers that depend on it). */
export type ScriptedTurn =
  | ScriptedTurnSpec
  | ((request: ModelRequest) => ScriptedTurnSpec | Promise<ScriptedTurnSpec>);

/** A deterministic model for tests and offline demos; it records what it was asked. */
export interface ScriptedModel extends ModelClientV1 {
  /** Every request received, in order. */
  readonly requests: readonly ModelRequest[];
  /** How many declared turns are still unused. */
  readonly remainingTurns: number;
}

/**
 * A deterministic test and demo model: each call to `generate` plays the next declared turn,
 * streaming its text word by word. After the last turn it fails with `MODEL_RESPONSE_INVALID`.
 * It is a test tool, not a model: it never looks at the conversation unless a turn is a function.
 *
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
 *   (req) => ({ text: `The sum is ${lastToolResult(req)}` }),
 * ]);
 * ```
 */
export function scriptedModel(turns: readonly ScriptedTurn[]): ScriptedModel {
  return new ScriptedModelClient(turns);
}

/** The model {@link scriptedModel} makes (a class: its getters live on the prototype). */
class ScriptedModelClient implements ScriptedModel {
  readonly specificationVersion = 'muster-model-v1';
  readonly provider = 'scripted';
  readonly defaultModelName = 'scripted';
  readonly #requests: ModelRequest[] = [];
  #next = 0;

  constructor(private readonly turns: readonly ScriptedTurn[]) {}

  get requests(): readonly ModelRequest[] {
    return this.#requests;
  }

  get remainingTurns(): number {
    return this.turns.length - this.#next;
  }

  generate(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelPart> {
    this.#requests.push(request);
    const index = this.#next++;
    return playTurn(this.turns[index], index, this.turns.length, request, options.signal);
  }
}

async function* playTurn(
  turn: ScriptedTurn | undefined,
  index: number,
  total: number,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ModelPart> {
  if (signal.aborted) throw abortedError('The model request', signal.reason);
  if (turn === undefined) {
    throw new ModelError(
      'MODEL_RESPONSE_INVALID',
      `The scripted model has no turn ${index + 1}: only ${total} were declared. Add a turn or raise fewer model requests.`,
      { details: { declaredTurns: total } },
    );
  }
  let spec: ScriptedTurnSpec;
  try {
    spec = typeof turn === 'function' ? await turn(request) : turn;
  } catch (err) {
    if (MusterError.isInstance(err)) throw err;
    throw new ModelError(
      'MODEL_REQUEST_FAILED',
      `Scripted turn ${index + 1} threw: ${String(err)}`,
      {
        cause: err,
      },
    );
  }
  if (spec.reasoning) yield { type: 'reasoning', text: spec.reasoning };
  const text =
    spec.output === undefined ? spec.text : `${spec.text ?? ''}${JSON.stringify(spec.output)}`;
  if (text) {
    for (const chunk of text.split(/(?<= )/)) {
      if (signal.aborted) throw abortedError('The model stream', signal.reason);
      yield { type: 'text-delta', text: chunk };
    }
  }
  const calls = spec.toolCalls ?? [];
  for (const [i, call] of calls.entries()) {
    yield {
      type: 'tool-call',
      callId: call.id ?? `call_${index + 1}_${i + 1}`,
      name: call.name,
      argumentsText: JSON.stringify(call.arguments),
    };
  }
  const usage = spec.usage ?? estimateUsage(request, spec);
  yield { type: 'finish', stopReason: calls.length > 0 ? 'tool-calls' : 'stop', usage };
}

function estimateUsage(request: ModelRequest, spec: ScriptedTurnSpec): Usage {
  const inputTokens = request.messages.length * 10;
  const answer = spec.output === undefined ? '' : JSON.stringify(spec.output);
  const outputTokens =
    Math.ceil(((spec.text?.length ?? 0) + answer.length) / 4) + (spec.toolCalls?.length ?? 0) * 10;
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}
