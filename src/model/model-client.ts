import type { ModelMessage, ProviderMetadata } from './transcript.js';

/** A tool as a model sees it: name, description and JSON Schema of its input. */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** Reasoning effort requested from models that support it. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** One request for one model turn. */
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
}

/** Token usage of one or more model turns. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly reasoningTokens?: number;
  readonly cachedInputTokens?: number;
}

/** Why a model turn ended. */
export type StopReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

/** One streamed piece of a model turn. */
export type ModelPart =
  | { readonly type: 'text-delta'; readonly text: string }
  | {
      readonly type: 'reasoning-delta';
      readonly text: string;
    }
  | {
      /** A finished reasoning item whose metadata must go back to the provider. */
      readonly type: 'reasoning';
      readonly text: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: 'tool-call';
      readonly callId: string;
      readonly name: string;
      /** The raw JSON text of the arguments, exactly as the model produced it. */
      readonly argumentsText: string;
      readonly providerMetadata?: ProviderMetadata;
    }
  | {
      readonly type: 'finish';
      readonly stopReason: StopReason;
      readonly usage?: Usage;
      readonly providerMetadata?: ProviderMetadata;
    };

/** Per-call options of {@link ModelClientV1.generate}. */
export interface ModelCallOptions {
  /** Aborts the request and the stream. */
  readonly signal: AbortSignal;
}

/**
 * Version 1 of the model boundary. Providers implement it; the agent loop only speaks it.
 * `generate` streams one turn. Failures are thrown as `ModelError` (`MODEL_REQUEST_FAILED`
 * or `MODEL_RESPONSE_INVALID`) or `ABORTED` when the signal fired.
 */
export interface ModelClientV1 {
  readonly specificationVersion: 'muster-model-v1';
  /** A short provider label such as `openai.responses`, used in events and errors. */
  readonly provider: string;
  /** The model used when neither the agent nor the run names one. */
  readonly defaultModelName?: string;
  /** Streams one model turn. */
  generate(request: ModelRequest, options: ModelCallOptions): AsyncIterable<ModelPart>;
}

/** The current model boundary. */
export type ModelClient = ModelClientV1;
