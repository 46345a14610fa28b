/**
 * Version 1 of the model boundary: types only. Providers implement `ModelClientV1`; a later
 * version goes beside this folder, not into it. Any new export added here becomes public API.
 */

// The client and one call.
export type { ModelClientV1, ModelCapabilities } from './model-client-v1.js';
export type { ModelCallOptions } from './model-call-options.js';
export type {
  ModelRequest,
  ReasoningEffort,
  ModelToolChoice,
  ModelProviderOptions,
  ModelOutputFormat,
} from './model-request.js';
export type { ModelToolDefinition } from './model-tool-definition.js';

// What a turn streams back.
export type { ModelPart } from './model-part.js';
export type { StopReason } from './stop-reason.js';
export type { Usage } from './usage.js';

// The neutral transcript.
export type { ProviderMetadata } from './provider-metadata.js';
export type {
  TextPart,
  ImagePart,
  UserContentPart,
  ReasoningPart,
  ToolCallPart,
  AssistantContentPart,
} from './model-content-part.js';
export type {
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  ModelMessage,
} from './model-message.js';
