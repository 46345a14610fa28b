/** The model layer: the versioned boundary, usage sums, and the scripted test model. */

// The boundary (version 1).
export type {
  ModelClientV1,
  ModelCapabilities,
  ModelCallOptions,
  ModelRequest,
  ReasoningEffort,
  ModelToolChoice,
  ModelProviderOptions,
  ModelOutputFormat,
  ModelToolDefinition,
  ModelPart,
  StopReason,
  Usage,
  ProviderMetadata,
  TextPart,
  ImagePart,
  UserContentPart,
  ReasoningPart,
  ToolCallPart,
  AssistantContentPart,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  ModelMessage,
} from './v1/index.js';
export type { ModelClient } from './model-client.js';

// Usage sums.
export { ZERO_USAGE, PICO_USD, addUsage, fromPicoUsd, toPicoUsd } from './add-usage.js';

// A deterministic model for tests and demos.
export { scriptedModel } from './scripted-model.js';
export type {
  ScriptedToolCall,
  ScriptedTurnSpec,
  ScriptedTurn,
  ScriptedModel,
} from './scripted-model.js';
