/**
 * The `muster-agent/anthropic` entry: a model client on the official `@anthropic-ai/sdk`, an
 * optional peer dependency that only this entry imports. Any new export added here becomes
 * public API.
 *
 * @module muster-agent/anthropic
 */

// The Messages API: text, parallel tool calls, extended thinking, images, prompt caching.
export { anthropic } from './anthropic-model.js';
export type { AnthropicProviderOptions } from './anthropic-model.js';
