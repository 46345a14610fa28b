/**
 * Errors and their codes (docs/guide/errors.md), offline: a run-level failure is thrown as a
 * `MusterError` with a stable `code`, secret-free `details` and a message that says what to
 * do; a tool-level failure reaches the model as an error result and the run goes on.
 *
 *   npx tsx examples/errors.ts
 */
import { z } from 'zod';
import { MusterError, createAgent, scriptedModel, tool } from '../src/index.js';

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

try {
  createAgent({ model: scriptedModel([]), tools: [add], limits: { maxIterations: 0 } });
} catch (err) {
  if (MusterError.isInstance(err)) console.log(`[thrown] ${err.code}: ${err.message}`);
}

const agent = createAgent({
  model: scriptedModel([
    { toolCalls: [{ name: 'add', arguments: { a: 1, b: 'two' } }] }, // a tool-level failure
    { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, // a run-level failure: limits
  ]),
  tools: [add],
  policy: { allow: ['add'] },
  limits: { maxIterations: 2 },
});
try {
  for await (const ev of agent.run({ input: 'Add 1 and 2.' })) {
    if (ev.type === 'tool.completed' && ev.isError) console.log(`[tool result] ${ev.content}`);
    if (ev.type === 'session.failed') console.log(`[session.failed] ${ev.error.code}`);
  }
} catch (err) {
  if (MusterError.isInstance(err))
    console.log(`[run threw] ${err.code} ${JSON.stringify(err.details)}: ${err.message}`);
} finally {
  await agent.close();
}
