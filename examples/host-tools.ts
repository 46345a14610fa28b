/**
 * Host tools (docs/guide/host-tools.md), offline: a tool with typed input and output, one
 * that reports progress, and what the model reads when a call goes wrong.
 *
 *   npx tsx examples/host-tools.ts
 */
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';

const convert = tool({
  name: 'convert_temperature',
  description: 'Converts degrees Celsius to Fahrenheit.',
  input: z.object({ celsius: z.number().min(-273.15) }),
  output: z.object({ fahrenheit: z.number() }), // results must carry matching `structured`
  annotations: { readOnlyHint: true },
  execute: ({ celsius }) => {
    const fahrenheit = (celsius * 9) / 5 + 32;
    return { content: `${fahrenheit} °F`, structured: { fahrenheit } };
  },
});

const backup = tool({
  name: 'backup',
  description: 'Backs up a folder.',
  input: z.object({ folder: z.string() }),
  execute: async ({ folder }, ctx) => {
    for (let step = 1; step <= 2; step++) ctx.reportProgress({ progress: step, total: 2 });
    if (folder === '/') throw new Error('refusing to back up the root folder');
    return `backed up ${folder}`;
  },
});

const model = scriptedModel([
  {
    toolCalls: [
      { name: 'convert_temperature', arguments: { celsius: 21 } },
      { name: 'convert_temperature', arguments: { celsius: 'warm' } }, // wrong type
      { name: 'backup', arguments: { folder: '/home' } },
      { name: 'backup', arguments: { folder: '/' } }, // the tool throws
      { name: 'delete_everything', arguments: {} }, // no such tool
    ],
  },
  { text: 'done' },
]);

const agent = createAgent({
  model,
  tools: [convert, backup],
  mcp: { strictConfig: true },
  policy: { allow: ['convert_temperature', 'backup'] },
});

try {
  for await (const ev of agent.run({ input: 'Go.' })) {
    if (ev.type === 'tool.progress') console.log(`  ${ev.toolName} ${ev.progress}/${ev.total}`);
    if (ev.type === 'tool.completed')
      console.log(`${ev.toolName}: ${ev.errorCode ?? 'ok'} ${ev.content.split('\n')[0]}`);
  }
} finally {
  await agent.close();
}
