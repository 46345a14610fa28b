import { readFileSync } from 'node:fs';
import { ModelError, MusterError } from '../errors/index.js';
import { scriptedModel } from '../model/index.js';
import type {
  ModelCallOptions,
  ModelClient,
  ModelPart,
  ModelRequest,
  ScriptedTurnSpec,
} from '../model/index.js';

/** What a `scripted:<file>` file declares: its turns, and whether each conversation replays them. */
export interface ScriptedFile {
  readonly turns: readonly ScriptedTurnSpec[];
  /**
   * False: one list of turns for the whole process, played in order across every run (the
   * plain array form). True: every conversation plays the list from its start, the turn
   * chosen by how many model turns the conversation has had.
   */
  readonly perConversation: boolean;
}

const FORMS =
  'Give a JSON array of turns ({ "text", "toolCalls": [{ "name", "arguments" }] }), played in order by the whole process, or { "perConversation": true, "turns": [...] }, played by each conversation from its first turn.';

const FIELDS = new Set(['turns', 'perConversation']);

/**
 * Reads and checks a `scripted:<file>` file: a JSON array of turns, or an object
 * `{ "perConversation"?: boolean, "turns": [...] }`. Anything else is
 * `INVALID_CONFIGURATION` saying which forms are accepted.
 */
export function readScriptedFile(file: string): ScriptedFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `--model scripted:<file> cannot read ${file}: ${(err as Error).message}. ${FORMS}`,
      { cause: err },
    );
  }
  const invalid = (what: string) =>
    new MusterError('INVALID_CONFIGURATION', `--model scripted:<file>: ${file} ${what}. ${FORMS}`, {
      details: { file },
    });
  if (Array.isArray(parsed)) return { turns: turnList(parsed, invalid), perConversation: false };
  if (!isRecord(parsed)) throw invalid('holds neither an array of turns nor an object');
  const unknown = Object.keys(parsed).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) throw invalid(`has an unknown field '${unknown}'`);
  const per = parsed['perConversation'];
  if (per !== undefined && typeof per !== 'boolean')
    throw invalid('has a "perConversation" that is not true or false');
  if (!Array.isArray(parsed['turns'])) throw invalid('has no "turns" array');
  // an empty array form is a model whose first request fails; a per-conversation list with no
  // turn serves nothing
  if (per === true && parsed['turns'].length === 0) throw invalid('declares no turn');
  return { turns: turnList(parsed['turns'], invalid), perConversation: per === true };
}

/** The model a `scripted:<file>` file describes (see {@link readScriptedFile}). */
export function scriptedFileModel(file: string): ModelClient {
  const { turns, perConversation } = readScriptedFile(file);
  return perConversation ? conversationModel(turns) : scriptedModel(turns);
}

function turnList(
  value: readonly unknown[],
  invalid: (what: string) => MusterError,
): ScriptedTurnSpec[] {
  const bad = value.findIndex((t) => !isRecord(t));
  if (bad >= 0) throw invalid(`has a turn (index ${bad}) that is not an object`);
  for (const [index, turn] of (value as Record<string, unknown>[]).entries()) {
    if (turn['text'] !== undefined && typeof turn['text'] !== 'string')
      throw invalid(`has a turn (index ${index}) whose "text" is not a string`);
    const calls = turn['toolCalls'];
    if (calls === undefined) continue;
    if (
      !Array.isArray(calls) ||
      calls.some((c) => !isRecord(c) || typeof c['name'] !== 'string' || !isRecord(c['arguments']))
    )
      throw invalid(
        `has a turn (index ${index}) whose "toolCalls" is not an array of { "name": string, "arguments": object }`,
      );
  }
  return value as ScriptedTurnSpec[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A scripted model that serves any number of conversations at once: a request gets the turn
 * whose index is the number of complete assistant messages in its transcript (a turn cut short
 * by an abort is played again). Nothing is shared between requests, so concurrent runs, and
 * runs resumed in another process, each get their own next turn. The count is of the request
 * as the context manager shaped it: a conversation long enough for it to drop old turns
 * (`context.maxMessages`, `maxTokens`) would replay earlier turns, so keep scripts within it.
 */
function conversationModel(turns: readonly ScriptedTurnSpec[]): ModelClient {
  return {
    specificationVersion: 'muster-model-v1',
    provider: 'scripted',
    defaultModelName: 'scripted',
    generate: (request, options) => playConversationTurn(turns, request, options),
  };
}

async function* playConversationTurn(
  turns: readonly ScriptedTurnSpec[],
  request: ModelRequest,
  options: ModelCallOptions,
): AsyncGenerator<ModelPart> {
  const index = request.messages.filter(
    (m) => m.role === 'assistant' && m.incomplete !== true,
  ).length;
  const turn = turns[index];
  if (turn === undefined)
    throw new ModelError(
      'MODEL_RESPONSE_INVALID',
      `The scripted model has no turn ${index + 1} for this conversation: only ${turns.length} were declared ("perConversation": true). Add a turn, or end the conversation sooner (a turn without "toolCalls").`,
      { details: { declaredTurns: turns.length } },
    );
  // call ids as the array form gives them (call_<turn>_<index>), counted in this conversation
  const calls = turn.toolCalls?.map((c, i) => ({ ...c, id: c.id ?? `call_${index + 1}_${i + 1}` }));
  yield* scriptedModel([calls === undefined ? turn : { ...turn, toolCalls: calls }]).generate(
    request,
    options,
  );
}
