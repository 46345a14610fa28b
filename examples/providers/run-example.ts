// example-helper: not run on its own
/**
 * What every provider example shares: one agent with a weather tool, run once with its
 * events printed, or a clean skip (exit code 0) when the key the provider needs is not set.
 */
import { z } from 'zod';
import { createAgent, tool } from '../../src/index.js';
import type { ModelClient } from '../../src/index.js';

const weather = tool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  input: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ city }) => JSON.stringify({ city, temperatureC: city === 'Oslo' ? 4 : 18 }),
});

/** Runs the example when `env` is set, and says how to run it otherwise. */
export async function runExample(
  env: string,
  build: (value: string) => { model: ModelClient; modelName: string },
): Promise<void> {
  const value = process.env[env];
  if (!value) {
    process.stdout.write(`skipped: set ${env} to run this example\n`);
    return;
  }
  const { model, modelName } = build(value);
  const agent = createAgent({
    model,
    modelName,
    system: 'Answer in one sentence.',
    tools: [weather],
    policy: { allow: ['get_weather'] },
  });
  for await (const ev of agent.run({ input: 'Is it warmer in Oslo or in Lisbon right now?' })) {
    if (ev.type === 'model.delta' && ev.kind === 'text') process.stdout.write(ev.content);
    if (ev.type === 'tool.called') process.stdout.write(`\n[${ev.toolName}]\n`);
    if (ev.type === 'session.completed')
      process.stdout.write(`\n\nusage: ${JSON.stringify(ev.usage)}\n`);
  }
  await agent.close();
}
