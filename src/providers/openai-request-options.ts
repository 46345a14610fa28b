import type { ModelOutputFormat, ModelRequest } from '../model/index.js';
import { mergeProviderOptions } from './kit/index.js';
import { OPENAI_PROVIDER_ID } from './openai-output-format.js';
import type { OpenAIOptionsEntry, OpenAIOutputFields } from './openai-output-format.js';

/** How one OpenAI API spells the request options both APIs have. */
export interface OpenAIRequestShape<Body extends { tool_choice?: unknown }> {
  /** The provider label used in errors. */
  readonly provider: string;
  /** Body fields `providerOptions.openai` may not set: the request structure owns them. */
  readonly reserved: readonly string[];
  /** The body field of `maxOutputTokens`. */
  readonly maxOutputTokens: keyof Body & string;
  /** The `tool_choice` that names one function. */
  readonly namedToolChoice: (name: string) => NonNullable<Body['tool_choice']>;
  /**
   * The fields that ask for a typed final answer (`output`), given the
   * `providerOptions.openai` entry; it throws when the entry would override them.
   */
  readonly output: (
    output: ModelOutputFormat,
    entry: OpenAIOptionsEntry | undefined,
    provider: string,
  ) => OpenAIOutputFields<Partial<Body>>;
}

/**
 * Adds the options both OpenAI APIs share to a body, each only when the request sets it:
 * `maxOutputTokens`, `toolChoice` (`auto`, `none` and `required` as they are),
 * `promptCacheKey` (as `prompt_cache_key`), `output` (the API's `json_schema` format, see
 * `openai-output-format.ts`), then the fields of `providerOptions.openai`. An entry that names
 * a reserved field or a field already set fails with `INVALID_CONFIGURATION` (the request wins
 * by refusing the conflict); so does one that would replace the `output` format.
 */
export function withOpenAIOptions<Body extends { tool_choice?: unknown }>(
  body: Body,
  request: ModelRequest,
  shape: OpenAIRequestShape<Body>,
): Body {
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  if (request.maxOutputTokens !== undefined) out[shape.maxOutputTokens] = request.maxOutputTokens;
  if (request.promptCacheKey !== undefined) out['prompt_cache_key'] = request.promptCacheKey;
  const choice = request.toolChoice;
  if (choice !== undefined) {
    out['tool_choice'] = typeof choice === 'string' ? choice : shape.namedToolChoice(choice.name);
  }
  let entry = request.providerOptions?.[OPENAI_PROVIDER_ID];
  if (request.output !== undefined) {
    const placed = shape.output(request.output, entry, shape.provider);
    Object.assign(out, placed.fields);
    entry = placed.entry;
  }
  return mergeProviderOptions(
    out as Body,
    entry === undefined ? undefined : { [OPENAI_PROVIDER_ID]: entry },
    OPENAI_PROVIDER_ID,
    shape.reserved,
    shape.provider,
  );
}
