/**
 * Tool hooks (docs/guide/hooks.md), offline: a `beforeTool` hook that rewrites arguments and
 * one that denies, an `afterTool` hook that redacts a result.
 *
 *   npx tsx examples/hooks.ts
 */
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';
import type { AfterToolHook, BeforeToolHook } from '../src/index.js';

const lookup = tool({
  name: 'lookup_customer',
  description: 'Finds a customer by email.',
  input: z.object({ email: z.string(), limit: z.number().max(50) }),
  annotations: { readOnlyHint: true },
  execute: ({ email, limit }) =>
    `found ${email} (limit ${limit}): card 4111 1111 1111 1111, phone +47 555 01 234`,
});

// Runs after validation, before policy: the approver and the tool see the rewritten call.
const normalize: BeforeToolHook = ({ arguments: args }) => ({
  arguments: { ...args, email: String(args['email']).trim().toLowerCase() },
});
const noStaff: BeforeToolHook = ({ arguments: args }) =>
  String(args['email']).endsWith('@staff.example')
    ? { decision: 'deny', reason: 'staff records are not searchable' }
    : undefined; // no answer: the call goes on
// Runs after the tool: the model (and the session) only ever see the redacted text.
const redactCards: AfterToolHook = ({ result }) => ({
  result: { ...result, content: result.content.replace(/\d{4}( \d{4}){3}/g, '[card]') },
});

const agent = createAgent({
  model: scriptedModel([
    {
      toolCalls: [
        { name: 'lookup_customer', arguments: { email: '  Ana@Example.COM ', limit: 5 } },
        { name: 'lookup_customer', arguments: { email: 'bo@staff.example', limit: 5 } },
      ],
    },
    { text: 'done' },
  ]),
  tools: [lookup],
  mcp: { strictConfig: true },
  hooks: { beforeTool: [normalize, noStaff], afterTool: redactCards },
  policy: { allow: ['lookup_customer'] },
});

try {
  for await (const ev of agent.run({ input: 'Look up Ana and Bo.' })) {
    if (ev.type === 'tool.called') console.log(`called with ${JSON.stringify(ev.arguments)}`);
    if (ev.type === 'tool.decision' && ev.stage === 'hook')
      console.log(`hook: ${ev.decision}, ${ev.reason}`);
    if (ev.type === 'tool.completed') console.log(`-> ${ev.errorCode ?? ev.content}`);
  }
} finally {
  await agent.close();
}
