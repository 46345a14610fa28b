import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js'; // 'muster-agent' in your code

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
// A model that plays a script, offline; openaiResponses() from 'muster-agent/openai' is a real one.
const model = scriptedModel([
  { toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] },
  { text: '2 + 40 = 42.' },
]);
const agent = createAgent({ model, tools: [add], policy: { allow: ['add'] } });
for await (const event of agent.run({ input: 'What is 2 + 40?' })) {
  if (event.type === 'tool.completed') console.log(`${event.toolName} -> ${event.content}`);
  if (event.type === 'session.completed') console.log(event.content);
}
await agent.close();
