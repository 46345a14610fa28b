import type { Anthropic } from '@anthropic-ai/sdk';
import type {
  AssistantMessage,
  ImagePart,
  ModelMessage,
  ModelRequest,
  ProviderMetadata,
  ToolResultMessage,
} from '../model/index.js';
import { MusterError } from '../errors/index.js';
import { THINKING_BUDGET, mergeProviderOptions, toolCallInput } from './kit/index.js';
import { toAnthropicOutput } from './anthropic-output.js';
import type { AnthropicStructuredOutput } from './anthropic-output.js';

/** The provider label of the Messages API client. */
export const ANTHROPIC_PROVIDER = 'anthropic.messages';

/** The `providerOptions` and `providerMetadata` key of the Anthropic client. */
export const ANTHROPIC_PROVIDER_ID = 'anthropic';

/** The `max_tokens` sent when the request sets no `maxOutputTokens` (the API requires one). */
export const DEFAULT_MAX_TOKENS = 8192;

/** The parts of a Messages request that do not depend on streaming. */
export type AnthropicRequestBody = Omit<Anthropic.MessageCreateParamsNonStreaming, 'stream'>;

/**
 * How a request body is built: prompt caching is on unless the provider turned it off, and a
 * typed answer is asked for natively unless the provider asks for it as a tool.
 */
export interface AnthropicBodyOptions {
  readonly promptCaching: boolean;
  readonly structuredOutput?: AnthropicStructuredOutput;
}

const RESERVED = ['model', 'messages', 'system', 'tools', 'stream'];

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Builds the Messages body of a neutral request. With prompt caching, cache breakpoints
 * (`cache_control`) go on the last tool, the system prompt and the last block of the
 * conversation, so the stable prefix (tools, then system) and the turns so far are read from
 * the cache on the next request. A typed answer (`request.output`) adds `output_config` or an
 * answer tool (see {@link toAnthropicOutput}). `providerOptions.anthropic` is merged last; an
 * entry that would set `model`, `messages`, `system`, `tools`, `stream` or a field a request
 * option already set (such as `max_tokens`) fails with `INVALID_CONFIGURATION`.
 */
export function toAnthropicRequestBody(
  request: ModelRequest,
  model: string,
  options: AnthropicBodyOptions,
): AnthropicRequestBody {
  const cache = options.promptCaching;
  const output = request.output
    ? toAnthropicOutput(
        request,
        request.output,
        options.structuredOutput ?? 'native',
        ANTHROPIC_PROVIDER,
        ANTHROPIC_PROVIDER_ID,
      )
    : undefined;
  const body: AnthropicRequestBody = {
    model,
    max_tokens: request.maxOutputTokens ?? DEFAULT_MAX_TOKENS,
    messages: toAnthropicMessages(request.messages, cache),
  };
  if (request.system) {
    body.system = [
      { type: 'text', text: request.system, ...(cache ? { cache_control: EPHEMERAL } : {}) },
    ];
  }
  const tools = request.tools.map(
    (tool): Anthropic.Tool => ({
      name: tool.name,
      description: tool.description,
      input_schema: { type: 'object', ...tool.inputSchema },
    }),
  );
  if (output?.answerTool) tools.push(output.answerTool);
  if (tools.length > 0) {
    const last = tools.length - 1;
    body.tools = tools.map((tool, i) =>
      cache && i === last ? { ...tool, cache_control: EPHEMERAL } : tool,
    );
  }
  const effort = request.reasoningEffort;
  if (effort !== undefined && effort !== 'none') {
    assertThinkingFits(request, effort);
    const wanted = THINKING_BUDGET[effort];
    if (request.maxOutputTokens === undefined)
      body.max_tokens = Math.max(body.max_tokens, wanted * 2);
    const budget = Math.max(MIN_THINKING_BUDGET, Math.min(wanted, body.max_tokens - 1));
    body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  const choice = request.toolChoice;
  if (choice !== undefined) body.tool_choice = toToolChoice(choice);
  else if (output?.toolChoice) body.tool_choice = output.toolChoice;
  if (output?.outputConfig) body.output_config = output.outputConfig;
  return mergeProviderOptions(
    body,
    output ? output.providerOptions : request.providerOptions,
    ANTHROPIC_PROVIDER_ID,
    RESERVED,
    ANTHROPIC_PROVIDER,
  );
}

/** The smallest thinking budget the Messages API accepts. */
const MIN_THINKING_BUDGET = 1024;

/**
 * Refuses, before any request, what the Messages API rejects with thinking on: a budget
 * (at least 1024 tokens) that is not below `max_tokens`, and a forced `tool_choice`.
 */
function assertThinkingFits(request: ModelRequest, effort: string): void {
  const max = request.maxOutputTokens;
  if (max !== undefined && max <= MIN_THINKING_BUDGET) {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `reasoningEffort '${effort}' needs maxOutputTokens above ${MIN_THINKING_BUDGET} with ${ANTHROPIC_PROVIDER} (thinking takes at least ${MIN_THINKING_BUDGET} tokens of it); it is ${max}: raise maxOutputTokens or set reasoningEffort 'none'.`,
      { details: { provider: ANTHROPIC_PROVIDER, option: 'maxOutputTokens' } },
    );
  }
  const choice = request.toolChoice;
  if (choice === 'required' || typeof choice === 'object') {
    throw new MusterError(
      'INVALID_CONFIGURATION',
      `reasoningEffort '${effort}' cannot be combined with a forced toolChoice with ${ANTHROPIC_PROVIDER} (thinking allows only 'auto' or 'none'): use toolChoice 'auto' or set reasoningEffort 'none'.`,
      { details: { provider: ANTHROPIC_PROVIDER, option: 'toolChoice' } },
    );
  }
}

function toToolChoice(choice: NonNullable<ModelRequest['toolChoice']>): Anthropic.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

type Block = Anthropic.ContentBlockParam;

/**
 * Maps the transcript to Messages turns. Tool results travel in user turns as `tool_result`
 * blocks that carry their images; consecutive turns of one role are merged, as the API wants.
 */
export function toAnthropicMessages(
  messages: readonly ModelMessage[],
  cache: boolean,
): Anthropic.MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]): void => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        push('user', [{ type: 'text', text: message.content }]);
        break;
      case 'user':
        push(
          'user',
          message.content.map((part) =>
            part.type === 'text' ? { type: 'text', text: part.text } : imageBlock(part),
          ),
        );
        break;
      case 'assistant':
        push('assistant', assistantBlocks(message));
        break;
      case 'tool':
        push('user', [toolResultBlock(message)]);
        break;
    }
  }
  if (cache) markLastBlock(out);
  return out;
}

/** Puts a cache breakpoint on the last block that may carry one. */
function markLastBlock(messages: { content: Block[] }[]): void {
  const blocks = messages.at(-1)?.content ?? [];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type === 'text' || block.type === 'image' || block.type === 'tool_result') {
      blocks[i] = { ...block, cache_control: EPHEMERAL };
      return;
    }
  }
}

function imageBlock(image: ImagePart): Anthropic.ImageBlockParam {
  if (image.data !== undefined) {
    return {
      type: 'image',
      source: {
        type: 'base64',
        media_type: image.mimeType as Anthropic.Base64ImageSource['media_type'],
        data: image.data,
      },
    };
  }
  return { type: 'image', source: { type: 'url', url: image.url ?? '' } };
}

function toolResultBlock(message: ToolResultMessage): Anthropic.ToolResultBlockParam {
  const media = message.media ?? [];
  return {
    type: 'tool_result',
    tool_use_id: message.callId,
    content:
      media.length === 0
        ? message.content
        : [{ type: 'text', text: message.content }, ...media.map(imageBlock)],
    ...(message.isError ? { is_error: true } : {}),
  };
}

function assistantBlocks(message: AssistantMessage): Block[] {
  const blocks: Block[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      if (part.text !== '') blocks.push({ type: 'text', text: part.text });
      continue;
    }
    const meta = anthropicMetadata(part.providerMetadata);
    if (part.type === 'reasoning') {
      // Thinking is sent back exactly as it came; reasoning of another provider is not.
      if (typeof meta['redactedData'] === 'string') {
        blocks.push({ type: 'redacted_thinking', data: meta['redactedData'] });
      } else if (typeof meta['signature'] === 'string') {
        blocks.push({ type: 'thinking', thinking: part.text, signature: meta['signature'] });
      }
      continue;
    }
    blocks.push({
      type: 'tool_use',
      id: part.callId,
      name: part.name,
      input: toolCallInput(part),
    });
  }
  return blocks;
}

function anthropicMetadata(
  metadata: ProviderMetadata | undefined,
): Readonly<Record<string, unknown>> {
  return metadata?.[ANTHROPIC_PROVIDER_ID] ?? {};
}
