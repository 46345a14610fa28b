/**
 * Limits (docs/guide/limits.md), offline: an agent-wide limit, a per-run override, a child's
 * limit, and what each refusal looks like.
 *
 *   npx tsx examples/limits.ts
 */
import { z } from 'zod';
import { createAgent, DEFAULT_LIMITS, MusterError, scriptedModel, tool } from '../src/index.js';

const ping = tool({
  name: 'ping',
  description: 'Answers pong.',
  input: z.object({ data: z.unknown().optional() }),
  execute: () => 'pong',
});
const call = (data?: unknown) => ({ name: 'ping', arguments: data === undefined ? {} : { data } });

const model = scriptedModel([
  { toolCalls: [call({ a: [[1]] })] }, // nests 4 levels: over the child's limit of 3
  { text: 'done' },
  { toolCalls: [call(), call(), call()] }, // 3 calls in one turn: over the run's limit of 2
  { toolCalls: [call()] },
  { toolCalls: [call()] },
  { toolCalls: [call()] }, // a 3rd turn: over the agent's limit of 2
]);

const agent = createAgent({
  model,
  tools: [ping],
  mcp: { strictConfig: true },
  policy: { allow: ['ping'] },
  limits: { maxIterations: 2 }, // every run of this agent
});
const child = agent.child({ limits: { maxToolArgumentDepth: 3 } }); // its runs only

const show = async (what: string, run: () => Promise<unknown>) => {
  const done = await run().then(
    (detail) => `completed${detail ? `, ${detail}` : ''}`,
    (e: unknown) => (MusterError.isInstance(e) ? `failed with ${e.code}` : String(e)),
  );
  console.log(`${what}: ${done}`);
};
try {
  console.log(`defaults: ${JSON.stringify(DEFAULT_LIMITS)}`);
  await show('child, deep arguments', async () => {
    const { events } = await child.send('Ping deeply.');
    const result = events.find((e) => e.type === 'tool.completed');
    return result?.type === 'tool.completed' && `the call got ${result.errorCode}`;
  });
  await show('three calls in a turn', () =>
    agent.send('Ping thrice.', { limits: { maxToolCallsPerTurn: 2 } }),
  );
  await show('many turns', () => agent.send('Ping forever.'));
  await show('a bad limit', () => agent.send('Hi.', { limits: { maxIterations: 0 } }));
} finally {
  await agent.close();
}
