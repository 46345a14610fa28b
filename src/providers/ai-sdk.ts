/**
 * The `muster-agent/ai-sdk` entry: adapts any AI SDK `LanguageModelV3` (types and errors from
 * `@ai-sdk/provider`, an optional peer dependency that only this entry imports). Any new export
 * added here becomes public API.
 *
 * @module muster-agent/ai-sdk
 */

// Any AI SDK language model (ai@6 family) as a Muster model client.
export { fromAiSdk } from './ai-sdk-model.js';
export type { FromAiSdkOptions } from './ai-sdk-model.js';
