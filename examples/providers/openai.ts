/**
 * Muster on OpenAI's Responses API. Needs OPENAI_API_KEY; skipped without it.
 *
 *   OPENAI_API_KEY=sk-... npx tsx examples/providers/openai.ts
 */
import { openaiResponses } from '../../src/providers/openai.js';
import { runExample } from './run-example.js';

await runExample('OPENAI_API_KEY', (apiKey) => ({
  model: openaiResponses({ apiKey }),
  modelName: process.env['OPENAI_MODEL'] ?? 'gpt-5-mini',
}));
