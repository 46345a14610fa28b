/**
 * Muster on a local server through the AI SDK's @ai-sdk/openai-compatible provider. Needs
 * OLLAMA_BASE_URL (such as http://localhost:11434/v1); skipped without it.
 *
 *   OLLAMA_BASE_URL=http://localhost:11434/v1 npx tsx examples/providers/ai-sdk-openai-compatible.ts
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { runExample } from './run-example.js';

await runExample('OLLAMA_BASE_URL', (baseURL) => {
  // includeUsage asks the server for token counts in the stream.
  const local = createOpenAICompatible({ name: 'ollama', baseURL, includeUsage: true });
  const model = fromAiSdk(local(process.env['OLLAMA_MODEL'] ?? 'qwen3'));
  return { model, modelName: model.defaultModelName! };
});
