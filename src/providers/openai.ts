/**
 * The `muster-agent/openai` entry: model clients on the official `openai` package, an optional
 * peer dependency that only this entry imports. Any new export added here becomes public API.
 *
 * @module muster-agent/openai
 */

// Chat Completions: OpenAI and OpenAI-compatible servers.
export { openaiChat } from './openai-chat.js';

// Responses API: OpenAI reasoning models with replayable reasoning items.
export { openaiResponses } from './openai-responses.js';

// Options shared by both clients.
export type { OpenAIProviderOptions } from './openai-shared.js';
