import type {
  JSONSchema7,
  LanguageModelV3CallOptions,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3TextPart,
  LanguageModelV3ToolChoice,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import type {
  AssistantMessage,
  ImagePart,
  ModelOutputFormat,
  ModelRequest,
  ProviderMetadata,
} from '../model/index.js';
import {
  THINKING_BUDGET,
  refuseOutputOverrides,
  toolCallInput,
  writeTranscript,
} from './kit/index.js';
import type { TranscriptWriter } from './kit/index.js';

/**
 * The `providerMetadata` key under which an AI SDK model's own metadata (itself keyed by the
 * AI SDK provider, such as `anthropic`) is kept in the transcript and sent back as
 * `providerOptions` on later turns.
 */
export const AI_SDK_METADATA_KEY = 'aiSdk';

type UserContent = LanguageModelV3TextPart | LanguageModelV3FilePart;

const WRITER: TranscriptWriter<LanguageModelV3Message, UserContent> = {
  text: (text) => ({ type: 'text', text }),
  image: (image) => filePart(image),
  system: (content) => ({ role: 'system', content }),
  user: (content) => ({ role: 'user', content }),
  assistant: (message) => [assistantMessage(message)],
  toolResult: (message) => ({
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: message.callId,
        toolName: message.toolName,
        output: message.isError
          ? { type: 'error-text', value: message.content }
          : { type: 'text', value: message.content },
      },
    ],
  }),
};

/**
 * The call options of a neutral request. The system prompt leads the prompt; images a tool
 * returned follow the tool results in one user message. `providerOptions` are passed as they
 * are (keyed by AI SDK provider id); `reasoningEffort`, which has no AI SDK call option, is
 * added to the entry of `providerId` (the first segment of the model's provider label). A
 * typed answer (`request.output`) goes out as `responseFormat` (`type: 'json'`, the schema as
 * Muster sends it, its name and description) beside the tools, with `output.strict` as the
 * `strictJsonSchema` option of `providerId`; then no entry may set {@link OUTPUT_OWNED_OPTIONS}
 * (`INVALID_CONFIGURATION`).
 */
export function toAiSdkCallOptions(
  request: ModelRequest,
  providerId: string,
  signal: AbortSignal,
  provider = `ai-sdk.${providerId}`,
): LanguageModelV3CallOptions {
  if (request.output)
    refuseOutputOverrides(request.providerOptions, 'all', OUTPUT_OWNED_OPTIONS, provider);
  const system: LanguageModelV3Message[] = request.system
    ? [{ role: 'system', content: request.system }]
    : [];
  const options: LanguageModelV3CallOptions = {
    prompt: [...system, ...writeTranscript(request.messages, WRITER)],
    abortSignal: signal,
  };
  if (request.tools.length > 0) {
    options.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      inputSchema: { ...tool.inputSchema },
    }));
  }
  if (request.toolChoice !== undefined) options.toolChoice = toToolChoice(request.toolChoice);
  if (request.maxOutputTokens !== undefined) options.maxOutputTokens = request.maxOutputTokens;
  if (request.output) options.responseFormat = responseFormat(request.output);
  const providerOptions = withExtras(request, providerId);
  if (providerOptions !== undefined) options.providerOptions = providerOptions;
  return options;
}

/**
 * The `providerOptions` fields a typed answer owns, in any entry: the format itself (the
 * AI SDK name, and the wire name OpenAI-compatible providers copy into the body after their
 * own) and whether its schema is strict.
 */
const OUTPUT_OWNED_OPTIONS: readonly string[] = [
  'responseFormat',
  'response_format',
  'strictJsonSchema',
];

function responseFormat(output: ModelOutputFormat): LanguageModelV3CallOptions['responseFormat'] {
  return {
    type: 'json',
    schema: output.schema as JSONSchema7,
    name: output.name,
    ...(output.description === undefined ? {} : { description: output.description }),
  };
}

/**
 * The request's `providerOptions` with what has no AI SDK call option added for the model's
 * provider id. `reasoningEffort`: Anthropic models get a thinking budget, others
 * `reasoningEffort` (the field of the OpenAI, OpenAI-compatible, xAI and Groq providers).
 * A typed answer: `strictJsonSchema` (OpenAI, OpenAI-compatible), `output.strict`. Fields the
 * request's own entry sets win.
 */
function withExtras(
  request: ModelRequest,
  providerId: string,
): SharedV3ProviderOptions | undefined {
  const given = request.providerOptions as SharedV3ProviderOptions | undefined;
  const effort = request.reasoningEffort;
  const output = request.output;
  if (effort === undefined && output === undefined) return given;
  const reasoning =
    effort === undefined
      ? {}
      : providerId === 'anthropic'
        ? {
            thinking:
              effort === 'none'
                ? { type: 'disabled' }
                : { type: 'enabled', budgetTokens: THINKING_BUDGET[effort] },
          }
        : { reasoningEffort: effort };
  const strict = output === undefined ? {} : { strictJsonSchema: output.strict };
  return { ...given, [providerId]: { ...reasoning, ...strict, ...given?.[providerId] } };
}

function toToolChoice(choice: NonNullable<ModelRequest['toolChoice']>): LanguageModelV3ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
}

function filePart(image: ImagePart): LanguageModelV3FilePart {
  if (image.data !== undefined)
    return { type: 'file', mediaType: image.mimeType, data: image.data };
  const url = image.url ?? '';
  const inline = /^data:[^;,]*;base64,(.*)$/s.exec(url);
  if (inline) return { type: 'file', mediaType: image.mimeType, data: inline[1]! };
  return { type: 'file', mediaType: image.mimeType, data: new URL(url) };
}

function assistantMessage(message: AssistantMessage): LanguageModelV3Message {
  const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      if (part.text !== '') content.push({ type: 'text', text: part.text });
      continue;
    }
    const providerOptions = aiSdkMetadata(part.providerMetadata);
    const extra = providerOptions ? { providerOptions } : {};
    if (part.type === 'reasoning') {
      content.push({ type: 'reasoning', text: part.text, ...extra });
      continue;
    }
    content.push({
      type: 'tool-call',
      toolCallId: part.callId,
      toolName: part.name,
      input: toolCallInput(part),
      ...extra,
    });
  }
  return { role: 'assistant', content };
}

/** The AI SDK metadata kept on a transcript part, if any. */
function aiSdkMetadata(
  metadata: ProviderMetadata | undefined,
): SharedV3ProviderOptions | undefined {
  const kept = metadata?.[AI_SDK_METADATA_KEY];
  return kept === undefined ? undefined : (kept as SharedV3ProviderOptions);
}
