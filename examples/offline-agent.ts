/**
 * Runs a Muster agent offline, end to end: a scripted model (a deterministic test model that
 * needs no network or API key) asks for two host tools, the policy approves them, and every
 * event is printed as it happens.
 *
 *   npm run example
 */
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';
import type { AgentEvent } from '../src/index.js';

const weather = tool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  input: z.object({ city: z.string() }),
  annotations: { readOnlyHint: true },
  execute: ({ city }) =>
    JSON.stringify({ city, temperatureC: city === 'Oslo' ? 4 : 18, sky: 'clear' }),
});

const note = tool({
  name: 'save_note',
  description: 'Saves a note for the user.',
  input: z.object({ text: z.string().max(200) }),
  execute: async ({ text }, ctx) => {
    ctx.reportProgress({ progress: 1, total: 1, message: 'saved' });
    return `saved (${text.length} characters)`;
  },
});

const model = scriptedModel([
  {
    text: 'Let me check both cities.',
    toolCalls: [
      { name: 'get_weather', arguments: { city: 'Oslo' } },
      { name: 'get_weather', arguments: { city: 'Lisbon' } },
    ],
  },
  { toolCalls: [{ name: 'save_note', arguments: { text: 'Pack a coat for Oslo.' } }] },
  (request) => {
    const results = request.messages.filter((m) => m.role === 'tool').length;
    return {
      text: `Done: I read ${results} tool results and saved a note. Oslo is cold, Lisbon is mild.`,
    };
  },
]);

const agent = createAgent({
  model,
  system: 'You are a helpful travel assistant.',
  tools: [weather, note],
  mcp: { strictConfig: true }, // this demo ignores MCP config files on the machine
  policy: {
    allow: ['get_weather'],
    // save_note is not pre-approved: the approver below is asked (a host would ask a human).
    approve: (request) => request.toolName === 'save_note',
  },
});

function describe(ev: AgentEvent): string {
  switch (ev.type) {
    case 'session.started':
      return `session ${ev.sessionId} (model ${ev.modelName})`;
    case 'model.completed':
      return `turn ${ev.iteration}: ${ev.toolCalls.length} tool call(s)`;
    case 'tool.approval.requested':
      return `${ev.toolName} ${JSON.stringify(ev.arguments)}`;
    case 'tool.decision':
      return `${ev.toolName}: ${ev.decision} (${ev.stage})`;
    case 'tool.called':
      return `${ev.toolName} ${JSON.stringify(ev.arguments)}`;
    case 'tool.progress':
      return `${ev.toolName} ${ev.progress}/${ev.total ?? '?'} ${ev.message ?? ''}`;
    case 'tool.completed':
      return `${ev.toolName} -> ${ev.content}`;
    case 'session.completed':
      return `${ev.content} [${ev.iterations} turns, ${ev.usage.totalTokens} tokens]`;
    case 'session.failed':
      return `${ev.error.code}: ${ev.error.message}`;
    default:
      return '';
  }
}

let midText = false;
try {
  for await (const ev of agent.run({
    input: 'What is the weather in Oslo and Lisbon? Save a note.',
  })) {
    // streamed text is written as it comes, on one line; every other event gets its own line
    if (ev.type === 'model.delta') {
      if (ev.kind !== 'text') continue;
      if (!midText) process.stdout.write(`${'model.text'.padEnd(24)} `);
      midText = true;
      process.stdout.write(ev.content);
      continue;
    }
    if (midText) process.stdout.write('\n');
    midText = false;
    process.stdout.write(`${ev.type.padEnd(24)} ${describe(ev)}\n`);
  }
} finally {
  await agent.close();
}
