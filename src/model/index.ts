export type {
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
} from './transcript.js';
export type {
  ModelToolDefinition,
  ReasoningEffort,
  ModelRequest,
  Usage,
  StopReason,
  ModelPart,
  ModelCallOptions,
  ModelClientV1,
  ModelClient,
} from './model-client.js';
export { ZERO_USAGE, addUsage } from './usage.js';
export { scriptedModel } from './scripted-model.js';
export type {
  ScriptedToolCall,
  ScriptedTurnSpec,
  ScriptedTurn,
  ScriptedModel,
} from './scripted-model.js';
