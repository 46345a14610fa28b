import type { ResponseTextConfig } from 'openai/resources/responses/responses';
import type { ResponseFormatJSONSchema } from 'openai/resources/shared';
import type { ModelOutputFormat } from '../model/index.js';
import { refuseOutputOverrides } from './kit/index.js';

// How a typed final answer (`ModelRequest.output`) goes on an OpenAI request: as a
// `json_schema` format, which the request owns. A `providerOptions.openai` entry can no more
// replace that format than it can replace the messages: the schema would then no longer be
// the one the agent validates the answer against.

/** The `providerOptions` key both OpenAI providers read. */
export const OPENAI_PROVIDER_ID = 'openai';

/** The `providerOptions.openai` entry of a request. */
export type OpenAIOptionsEntry = Readonly<Record<string, unknown>>;

/**
 * The body fields that ask for a typed final answer, and the part of the
 * `providerOptions.openai` entry left to merge after them.
 */
export interface OpenAIOutputFields<Fields> {
  /** The fields to add to the body. */
  readonly fields: Fields;
  /** The entry without the fields merged into `fields`. */
  readonly entry: OpenAIOptionsEntry | undefined;
}

/**
 * Chat Completions: `response_format: { type: 'json_schema', json_schema: { name, schema,
 * strict, description? } }`, `strict` as the output says and `description` only when given.
 * An entry that sets `response_format` fails with `INVALID_CONFIGURATION`.
 */
export function chatOutputFields(
  output: ModelOutputFormat,
  entry: OpenAIOptionsEntry | undefined,
  provider: string,
): OpenAIOutputFields<{ response_format: ResponseFormatJSONSchema }> {
  refuseOutputOverride(entry, 'response_format', provider);
  const jsonSchema: ResponseFormatJSONSchema.JSONSchema = {
    name: output.name,
    schema: { ...output.schema },
    strict: output.strict,
  };
  if (output.description !== undefined) jsonSchema.description = output.description;
  return { fields: { response_format: { type: 'json_schema', json_schema: jsonSchema } }, entry };
}

/**
 * Responses: `text: { format: { type: 'json_schema', name, schema, strict, description? } }`.
 * A `text` object in the entry (such as `{ verbosity: 'low' }`) is kept, with `format` added
 * to it; an entry whose `text` sets `format`, or is not an object, fails with
 * `INVALID_CONFIGURATION`.
 */
export function responsesOutputFields(
  output: ModelOutputFormat,
  entry: OpenAIOptionsEntry | undefined,
  provider: string,
): OpenAIOutputFields<{ text: ResponseTextConfig }> {
  refuseOutputOverride(entry, 'text.format', provider);
  const format: NonNullable<ResponseTextConfig['format']> = {
    type: 'json_schema',
    name: output.name,
    schema: { ...output.schema },
    strict: output.strict,
    ...(output.description === undefined ? {} : { description: output.description }),
  };
  const text = entry?.['text'];
  if (text === undefined) return { fields: { text: { format } }, entry };
  // A `text` that is no object cannot take `format`: this refuses it as a whole (throws).
  if (typeof text !== 'object' || text === null || Array.isArray(text)) {
    refuseOutputOverride(entry, 'text', provider);
  }
  const { text: _merged, ...rest } = entry ?? {};
  return { fields: { text: { ...(text as ResponseTextConfig), format } }, entry: rest };
}

function refuseOutputOverride(
  entry: OpenAIOptionsEntry | undefined,
  option: string,
  provider: string,
): void {
  const options = entry === undefined ? undefined : { [OPENAI_PROVIDER_ID]: entry };
  refuseOutputOverrides(options, [OPENAI_PROVIDER_ID], [option], provider);
}
