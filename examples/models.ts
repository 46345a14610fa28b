/**
 * The model boundary, offline (docs/guide/models.md): a `ModelClient` of your own that
 * streams parts, fails once with a rate limit, and is retried by `modelRetry`.
 *
 *   npx tsx examples/models.ts
 */
import { createAgent, ModelError } from '../src/index.js';
import type { ModelClient, ModelPart, ModelRequest } from '../src/index.js';

let calls = 0;

// A provider is an object with `generate(request, { signal })` streaming ModelParts.
const echo: ModelClient = {
  specificationVersion: 'muster-model-v1',
  provider: 'echo',
  defaultModelName: 'echo-1',
  async *generate(request: ModelRequest): AsyncIterable<ModelPart> {
    calls++;
    if (calls === 1) {
      // thrown before any part: a retryable failure that modelRetry may try again
      throw new ModelError('MODEL_REQUEST_FAILED', 'rate limited', {
        status: 429,
        isRetryable: true,
      });
    }
    const last = request.messages.at(-1);
    const part = last?.role === 'user' ? last.content[0] : undefined;
    const text = part?.type === 'text' ? part.text : '';
    for (const word of `${request.modelName} says: ${text.toUpperCase()}`.split(' '))
      yield { type: 'text-delta', text: `${word} ` };
    yield {
      type: 'finish',
      stopReason: 'stop',
      usage: { inputTokens: text.length, outputTokens: 4, totalTokens: text.length + 4 },
    };
  },
};

const agent = createAgent({
  model: echo,
  mcp: { strictConfig: true },
  modelRetry: { maxAttempts: 3, initialDelayMs: 50 },
});

try {
  const reply = await agent.send('hello models');
  console.log(`${reply.text.trim()} (model called ${calls} times)`);
  // without retries, the same failure ends the run with the error's code
  calls = 0;
  const failed = await agent.send('again', { modelRetry: { maxAttempts: 1 } }).catch((e) => e);
  console.log(`without retries: ${failed.code}, retryable: ${failed.isRetryable}`);
} finally {
  await agent.close();
}
