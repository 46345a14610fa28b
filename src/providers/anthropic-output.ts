import type { Anthropic } from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { MusterError } from '../errors/index.js';
import type { ModelOutputFormat, ModelProviderOptions, ModelRequest } from '../model/index.js';
import { refuseOutputOverrides } from './kit/index.js';

/**
 * How a typed final answer is asked of a Messages endpoint: `native` sends
 * `output_config.format`; `tool` offers the answer as a tool whose input is the answer.
 */
export type AnthropicStructuredOutput = 'native' | 'tool';

/** What a request that asks for a typed answer adds to a Messages body. */
export interface AnthropicOutputFields {
  /** `output_config` (native), merged over the one `providerOptions.anthropic` gave. */
  readonly outputConfig?: Anthropic.OutputConfig;
  /** The answer tool (tool mode), offered after the request's own tools. */
  readonly answerTool?: Anthropic.Tool;
  /** The `tool_choice` of tool mode, when the request set none and thinking is off. */
  readonly toolChoice?: Anthropic.ToolChoice;
  /** The provider options left to merge: without the `output_config` folded in above. */
  readonly providerOptions: ModelProviderOptions | undefined;
}

/**
 * The Messages fields of the request's typed answer, after refusing what would contradict it.
 * The schema goes through the SDK's own `transformJSONSchema` (constraints the API does not
 * enforce, such as `minLength` or an unsupported `format`, move into `description`). Native:
 * `output_config: { format: { type: 'json_schema', schema } }`, merged with the
 * `output_config` of `providerOptions.anthropic` (such as `effort`). Tool mode: a tool named
 * `output.name` whose `input_schema` is the schema, and a `tool_choice` that makes the model
 * call a tool (the answer tool alone, or `any` beside the request's tools); a `toolChoice`
 * of the request wins, and with thinking on (which refuses a forced choice) none is sent.
 * `providerOptions.anthropic` may not set `output_config.format` (nor `tool_choice` in tool
 * mode), and the answer tool may not share a name with a request tool: either fails with
 * `INVALID_CONFIGURATION` before any request.
 */
export function toAnthropicOutput(
  request: ModelRequest,
  output: ModelOutputFormat,
  mode: AnthropicStructuredOutput,
  provider: string,
  providerId: string,
): AnthropicOutputFields {
  const owned =
    mode === 'tool' ? ['output_config.format', 'tool_choice'] : ['output_config.format'];
  refuseOutputOverrides(request.providerOptions, [providerId], owned, provider);
  const schema = transformedSchema(output, provider);
  if (mode === 'native') {
    const { config, rest } = splitOutputConfig(request.providerOptions, providerId);
    return {
      outputConfig: { ...config, format: { type: 'json_schema', schema } },
      providerOptions: rest,
    };
  }
  if (schema['type'] !== 'object') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `structuredOutput 'tool' sends the typed answer as a tool input, which must be an object, with ${provider}: give run({ output }) an object schema or use structuredOutput 'native'.`,
      { details: { provider, option: 'output.schema' } },
    );
  }
  if (request.tools.some((t) => t.name === output.name)) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The typed answer's name '${output.name}' is also a tool's name with ${provider} (structuredOutput 'tool' offers the answer as a tool): rename the output or the tool.`,
      { details: { provider, option: 'output.name' } },
    );
  }
  const answerTool: Anthropic.Tool = {
    name: output.name,
    description: output.description ?? ANSWER_TOOL_DESCRIPTION,
    input_schema: schema as Anthropic.Tool.InputSchema,
  };
  const thinking = request.reasoningEffort !== undefined && request.reasoningEffort !== 'none';
  const providerOptions = request.providerOptions;
  if (request.toolChoice !== undefined || thinking) return { answerTool, providerOptions };
  return {
    answerTool,
    providerOptions,
    toolChoice: request.tools.length === 0 ? { type: 'tool', name: output.name } : { type: 'any' },
  };
}

const ANSWER_TOOL_DESCRIPTION =
  'Gives the final answer: call it once, when done, with the answer as its input.';

function transformedSchema(output: ModelOutputFormat, provider: string): Record<string, unknown> {
  try {
    return transformJSONSchema(output.schema);
  } catch (err) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `The typed answer's schema cannot be sent to ${provider}: ${err instanceof Error ? err.message : String(err)}. Give every schema node a type (or anyOf, enum, const).`,
      { details: { provider, option: 'output.schema' }, cause: err },
    );
  }
}

/** The `output_config` object of the provider's entry, and the options without it. */
function splitOutputConfig(
  options: ModelProviderOptions | undefined,
  providerId: string,
): { config: Record<string, unknown>; rest: ModelProviderOptions | undefined } {
  const entry = options?.[providerId];
  const config = entry?.['output_config'];
  if (entry === undefined || typeof config !== 'object' || config === null || Array.isArray(config))
    return { config: {}, rest: options };
  const others: Record<string, unknown> = { ...entry };
  delete others['output_config'];
  return { config: config as Record<string, unknown>, rest: { ...options, [providerId]: others } };
}
