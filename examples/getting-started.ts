/**
 * A first agent, offline (docs/guide/getting-started.md): one host tool, a scripted model
 * that calls it, a policy that allows it, and the answer.
 *
 *   npx tsx examples/getting-started.ts
 */
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  annotations: { readOnlyHint: true },
  execute: ({ a, b }) => String(a + b),
});

// A scripted model plays its turns in order: no network, no API key.
const model = scriptedModel([
  { toolCalls: [{ name: 'add', arguments: { a: 2, b: 40 } }] },
  (request) => {
    const result = request.messages.at(-1);
    return { text: `2 + 40 = ${result?.role === 'tool' ? result.content : '?'}` };
  },
  (request) => ({ text: `This conversation has ${request.messages.length} messages.` }),
]);

const agent = createAgent({
  model,
  tools: [add],
  mcp: { strictConfig: true }, // ignore MCP config files on this machine
  policy: { allow: ['add'] }, // pre-approved; any other call would be refused
});

try {
  // run() yields events as they happen
  let sessionId = '';
  for await (const event of agent.run({ input: 'What is 2 + 40?' })) {
    if (event.type === 'session.started') sessionId = event.sessionId;
    if (event.type === 'tool.completed') console.log(`${event.toolName} -> ${event.content}`);
    if (event.type === 'session.completed') console.log(`answer: ${event.content}`);
  }
  // send() runs to the end; the same sessionId continues the conversation
  const reply = await agent.send('How long is this conversation?', { sessionId });
  console.log(`answer: ${reply.text} (${reply.usage.totalTokens} tokens)`);
} finally {
  await agent.close();
}
