/**
 * Context management (docs/guide/context.md), offline: a conversation outgrows the request
 * limit (`context.maxMessages: 4`, to make it quick), and each request is shaped to fit: the
 * oldest turns are replaced by a summary from the host's `summarize` function. The stored
 * transcript keeps every message.
 *
 *   npx tsx examples/context.ts
 */
import { createAgent, scriptedModel } from '../src/index.js';
import type { ModelMessage } from '../src/index.js';

const model = scriptedModel([
  { text: 'Noted: the budget is 40k.' },
  { text: 'Noted: the deadline is May.' },
  { text: 'Budget 40k, deadline May, owner Ana.' },
]);

const agent = createAgent({
  model,
  context: {
    maxMessages: 4, // default 100; also maxTokens (default 32000) and maxBytes
    strategy: 'summarize', // the default when `summarize` is given, else 'truncate'
    summarize: async (messages) => `Earlier: ${messages.length} messages about a budget of 40k.`,
  },
});

const show = (m: ModelMessage) =>
  m.role === 'system' ? `system ${JSON.stringify(m.content)}` : m.role;

try {
  await agent.send('The budget is 40k.', { sessionId: 'plan' });
  await agent.send('The deadline is May.', { sessionId: 'plan' });
  for await (const ev of agent.run({ input: 'Sum it up; Ana owns it.', sessionId: 'plan' })) {
    if (ev.type === 'context.compacted')
      console.log(
        `[compacted] ${ev.strategy}: ${ev.before.messages} -> ${ev.after.messages} messages, ${ev.removedMessages} replaced`,
      );
  }
  console.log(`[sent] ${model.requests[2]!.messages.map(show).join(', ')}`);
  const stored = await agent.sessions.get('plan');
  console.log(`[stored] ${stored!.messages.length} messages`);
} finally {
  await agent.close();
}
