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

/**
 * A typed final answer the run asks for (SPEC 15.4): the model answers with JSON text matching
 * `schema`. Muster sends the schema already in a strict form where it could make one
 * (`strict: true`: an object root, every property required, optional ones nullable, no
 * additional properties, records as `{ key, value }` entries); the agent undoes that form and
 * validates the answer against the host's schema. A provider asks natively with it (OpenAI
 * `json_schema`, Anthropic `output_config`, AI SDK `responseFormat`) and streams the answer as
 * text, like any other final answer.
 */
export interface ModelOutputFormat {
  /** A name for the answer's schema (default `final_answer`; OpenAI requires one). */
  readonly name: string;
  /** What the answer is, for providers that send a description. */
  readonly description?: string;
  /** The JSON Schema (draft 2020-12) of the answer's JSON, as Muster sends it. */
  readonly schema: Readonly<Record<string, unknown>>;
  /** True when `schema` is in strict form; providers with a strict mode turn it on only then. */
  readonly strict: boolean;
}

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
  /**
   * The typed final answer this run asks for. Tools stay available: the model calls them as
   * usual, and its final answer (the turn without tool calls) is the JSON. Absent: free text.
   */
  readonly output?: ModelOutputFormat;
}
