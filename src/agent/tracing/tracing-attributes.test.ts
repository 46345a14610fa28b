import { describe, expect, it } from 'vitest';
import { providerName } from './tracing-attributes.js';

describe('providerName', () => {
  it.each([
    ['openai.responses', 'openai'],
    ['openai.chat', 'openai'],
    ['anthropic.messages', 'anthropic'],
    ['ai-sdk.openai.chat', 'openai'],
    ['ai-sdk.anthropic.messages', 'anthropic'],
    ['ai-sdk.amazon-bedrock', 'aws.bedrock'],
    ['ai-sdk.google.generative-ai', 'gcp.gemini'],
    ['ai-sdk.google.vertex.chat', 'gcp.vertex_ai'],
    ['ai-sdk.vertex.anthropic.messages', 'gcp.vertex_ai'],
    ['ai-sdk.azure.chat', 'azure.ai.openai'],
    ['ai-sdk.mistral.chat', 'mistral_ai'],
    ['ai-sdk.xai.chat', 'x_ai'],
    ['ai-sdk.groq.chat', 'groq'],
    ['ai-sdk.deepseek.chat', 'deepseek'],
    ['ai-sdk.cohere.chat', 'cohere'],
    ['ai-sdk.perplexity', 'perplexity'],
  ])('maps %s to the well-known %s', (provider, expected) => {
    expect(providerName(provider)).toBe(expected);
  });

  it.each(['aws.bedrock', 'azure.ai.inference', 'ibm.watsonx.ai', 'gcp.gemini', 'x_ai'])(
    'keeps the well-known %s',
    (provider) => {
      expect(providerName(provider)).toBe(provider);
    },
  );

  it.each(['scripted', 'acme.chat', 'ai-sdk.acme.chat', 'constructor', ''])(
    'passes the unknown %j through as given',
    (provider) => {
      expect(providerName(provider)).toBe(provider);
    },
  );
});
