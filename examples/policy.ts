/**
 * Policy and approvals (docs/guide/policy.md), offline: deny, a rule, allow, an approver that
 * allows or redirects, and an observer; then the same calls with no approver.
 *
 *   npx tsx examples/policy.ts
 */
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';
import type { PolicyOptions } from '../src/index.js';

const fileTool = (name: string) =>
  tool({
    name,
    description: `${name} a file.`,
    input: z.object({ path: z.string() }),
    execute: () => 'ok',
  });
const tools = ['read_file', 'write_file', 'delete_file'].map(fileTool);

const calls = [
  { name: 'read_file', arguments: { path: 'notes.md' } },
  { name: 'write_file', arguments: { path: 'notes.md' } },
  { name: 'write_file', arguments: { path: '/etc/hosts' } },
  { name: 'delete_file', arguments: { path: 'notes.md' } },
];

const policy: PolicyOptions = {
  deny: ['delete_file'], // always refused, whatever comes after
  rules: [
    {
      id: 'no-system-files',
      authorize: (req) =>
        String(req.arguments?.['path']).startsWith('/etc/')
          ? {
              decision: 'redirect',
              message: 'System files are off limits; write under ./ instead.',
            }
          : undefined, // abstain: the next stage decides
    },
  ],
  allow: ['read_file'], // pre-approved
  // everything else is asked (default: 'ask'); a person would answer here
  approve: async (req) => req.toolName === 'write_file',
  // sees every final decision (never the arguments); cannot change it
  observer: (ev) => console.log(`${ev.toolName}: ${ev.decision} (stage ${ev.stage})`),
};

for (const approve of [policy.approve, undefined]) {
  console.log(approve ? 'with an approver:' : 'without an approver:');
  const agent = createAgent({
    model: scriptedModel([
      { toolCalls: calls },
      (req) => {
        const last = req.messages.at(-1); // a redirect's message comes as the user's
        const part = last?.role === 'user' ? last.content[0] : undefined;
        console.log(`the model is told: ${part?.type === 'text' ? part.text : '-'}`);
        return { text: 'done' };
      },
    ]),
    tools,
    mcp: { strictConfig: true },
    policy: { ...policy, approve },
  });
  try {
    for await (const ev of agent.run({ input: 'Tidy my notes.' }))
      if (ev.type === 'tool.completed')
        console.log(`  ${ev.executed ? 'ran' : `not run: ${ev.errorCode ?? 'redirected'}`}`);
  } finally {
    await agent.close();
  }
}
