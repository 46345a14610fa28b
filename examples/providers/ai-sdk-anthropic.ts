/**
 * Muster on an AI SDK provider (here @ai-sdk/anthropic). Needs ANTHROPIC_API_KEY; skipped
 * without it.
 *
 *   ANTHROPIC_API_KEY=sk-ant-... npx tsx examples/providers/ai-sdk-anthropic.ts
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { fromAiSdk } from '../../src/providers/ai-sdk.js';
import { runExample } from './run-example.js';

await runExample('ANTHROPIC_API_KEY', (apiKey) => {
  const model = fromAiSdk(
    createAnthropic({ apiKey })(process.env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5'),
  );
  return { model, modelName: model.defaultModelName! };
});
