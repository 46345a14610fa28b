/**
 * Muster on a local OpenAI-compatible server (Ollama, vLLM, llama.cpp) through openaiChat and
 * its baseURL. Needs OLLAMA_BASE_URL (such as http://localhost:11434/v1) and a model that
 * calls tools (OLLAMA_MODEL, default qwen3); skipped without it.
 *
 *   OLLAMA_BASE_URL=http://localhost:11434/v1 npx tsx examples/providers/ollama.ts
 */
import { openaiChat } from '../../src/providers/openai.js';
import { runExample } from './run-example.js';

await runExample('OLLAMA_BASE_URL', (baseURL) => ({
  // Local servers accept any key; `images: false` suits a text-only model.
  model: openaiChat({ baseURL, apiKey: 'ollama' }),
  modelName: process.env['OLLAMA_MODEL'] ?? 'qwen3',
}));
