import type { ModelMessage } from './model-message.js';
import type { ModelToolDefinition } from './model-tool-definition.js';

/** Reasoning effort requested from models that support it. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/**
 * Which tools the model may or must call this turn: `auto` (the model decides), `none` (no
 * tool), `required` (at least one tool), or one named tool.
 */
export type ModelToolChoice =
  | 'auto'
  | 'none'
  | 'required'
  | { readonly type: 'tool'; readonly name: string };

/**
 * Provider-specific request fields, keyed by provider id (`openai`, ...). Each provider reads
 * only its own entry and documents which fields it refuses to let an entry set.
 */
export type ModelProviderOptions = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** One request for one model turn. A provider sends no optional field the request left unset. */
export interface ModelRequest {
  /** The provider's model identifier. */
  readonly modelName: string;
  /** The system prompt, when there is one. */
  readonly system?: string;
  /** The conversation so far, oldest first. */
  readonly messages: readonly ModelMessage[];
  /** The tools the model may call this turn. */
  readonly tools: readonly ModelToolDefinition[];
  /** Requested reasoning effort, forwarded to providers that support it. */
  readonly reasoningEffort?: ReasoningEffort;
  /** False asks the provider for a buffered (non-streamed) answer when it has one. */
  readonly stream: boolean;
  /** The most tokens the model may produce this turn (reasoning included, where counted). */
  readonly maxOutputTokens?: number;
  /** Which tools the model may or must call; the provider's default when absent. */
  readonly toolChoice?: ModelToolChoice;
  /** Extra fields for one provider, keyed by provider id. */
  readonly providerOptions?: ModelProviderOptions;
  /**
   * A stable key for the provider's prompt cache (OpenAI `prompt_cache_key`): requests that
   * share it and a prefix are routed to the same cache. Providers without one ignore it.
   */
  readonly promptCacheKey?: string;
}
