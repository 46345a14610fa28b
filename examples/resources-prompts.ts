/**
 * Resources, prompts, completion and subscriptions (docs/guide/resources-prompts.md), offline,
 * against server-everything from npm: the host reads them with `agent.mcp`, and
 * `exposeResources` lets the model read them through the policy.
 *
 *   npx tsx examples/resources-prompts.ts
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { createAgent, scriptedModel } from '../src/index.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const everything = resolve(dirname(manifest), Object.values(bin)[0]!);

const uri = 'demo://resource/dynamic/text/1';
const agent = createAgent({
  model: scriptedModel([
    { toolCalls: [{ name: 'mcp_resources_read', arguments: { server: 'demo', uri } }] },
    { text: 'done' },
  ]),
  mcpServers: { demo: { command: process.execPath, args: [everything, 'stdio'] } },
  mcp: { strictConfig: true, exposeResources: true }, // adds mcp_resources_list and _read
  policy: { allow: ['mcp_connect:demo', 'mcp_resources_*'] },
});

try {
  const { resources } = await agent.mcp.listResources('demo');
  const { resourceTemplates } = await agent.mcp.listResourceTemplates('demo');
  console.log(`${resources.length} resources, templates: ${resourceTemplates[0]?.uriTemplate}`);
  const read = await agent.mcp.readResource('demo', uri);
  console.log(`read ${uri}: ${JSON.stringify(read.contents[0])}`);

  const { prompts } = await agent.mcp.listPrompts('demo');
  const prompt = await agent.mcp.getPrompt('demo', 'args-prompt', { city: 'Lisbon' });
  console.log(`${prompts.length} prompts; args-prompt: ${JSON.stringify(prompt.messages[0])}`);
  const { completion } = await agent.mcp.complete('demo', {
    ref: { type: 'ref/prompt', name: 'completable-prompt' },
    argument: { name: 'department', value: 'S' },
  });
  console.log(`completions of 'S': ${completion.values.join(', ')}`);

  await agent.mcp.subscribeResource('demo', uri);
  const updates = await agent.mcp.listen('demo', { resourceSubscriptions: [uri] });
  await agent.mcp.callTool('demo', 'toggle-subscriber-updates', {}); // the server starts sending
  for await (const notice of updates.events) {
    console.log(`notice: ${notice.method} ${JSON.stringify(notice.params)}`);
    break;
  }
  await updates.close();
  await agent.mcp.unsubscribeResource('demo', uri);

  const reply = await agent.send('Read the first resource.');
  const done = reply.events.find((e) => e.type === 'tool.completed');
  if (done?.type === 'tool.completed') console.log(`the model read: ${done.content}`);
} finally {
  await agent.close();
}
