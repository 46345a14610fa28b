/**
 * Muster on Anthropic's Messages API (prompt caching on by default). Needs ANTHROPIC_API_KEY;
 * skipped without it.
 *
 *   ANTHROPIC_API_KEY=sk-ant-... npx tsx examples/providers/anthropic.ts
 */
import { anthropic } from '../../src/providers/anthropic.js';
import { runExample } from './run-example.js';

await runExample('ANTHROPIC_API_KEY', (apiKey) => ({
  model: anthropic({ apiKey }),
  modelName: process.env['ANTHROPIC_MODEL'] ?? 'claude-sonnet-4-5',
}));
