/**
 * Client handlers and mcpContext (docs/guide/client-handlers.md), offline, against
 * server-everything from npm: the server asks the host for roots, a model completion
 * (sampling) and the user's input (elicitation), and sends a log message; a run preloads a
 * resource and a prompt.
 *
 *   npx tsx examples/client-handlers.ts
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { createAgent, scriptedModel } from '../src/index.js';
import type { McpHandlers } from '../src/index.js';

const require = createRequire(import.meta.url);
const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
const everything = resolve(dirname(manifest), Object.values(bin)[0]!);

// Each handler given declares a capability; a server cannot ask for one that is absent.
const handlers: McpHandlers = {
  roots: [{ uri: 'file:///srv/project', name: 'project' }],
  sampling: async (request, origin) => {
    console.log(
      `[sampling] ${origin.server} asks: ${JSON.stringify(request.messages[0]?.content)}`,
    );
    return { role: 'assistant', model: 'host-model', content: { type: 'text', text: 'Paris' } };
  },
  elicitation: async (request) => {
    console.log(`[elicitation] ${request.mode}: ${request.message}`);
    return { action: 'accept', content: { name: 'Ana Lima' } }; // a person would fill the form
  },
  logging: (message) => console.log(`[log] ${message.level}: ${JSON.stringify(message.data)}`),
};

const tool = (name: string, args: object = {}) => ({ name: `mcp__demo__${name}`, arguments: args });
const agent = createAgent({
  model: scriptedModel([
    (request) => {
      const first = request.messages[0]; // the preloaded context, before the user's input
      const part = first?.role === 'user' ? first.content[0] : undefined;
      console.log(`[mcpContext] ${part?.type === 'text' ? part.text.split('\n')[2] : ''}`);
      return { toolCalls: [tool('get-roots-list')] };
    },
    { toolCalls: [tool('trigger-sampling-request', { prompt: 'Capital of France?' })] },
    { toolCalls: [tool('trigger-elicitation-request')] },
    { text: 'done' },
  ]),
  mcpServers: { demo: { command: process.execPath, args: [everything, 'stdio'] } },
  mcp: { strictConfig: true, handlers },
  policy: { allow: ['mcp_connect:demo', 'mcp__demo'] },
  mcpContext: {
    maxBytes: 10_000, // more fails the run (AGENT_LIMIT_EXCEEDED) before the model is called
    resources: [{ server: 'demo', uri: 'demo://resource/dynamic/text/1' }],
    prompts: [{ server: 'demo', name: 'args-prompt', arguments: { city: 'Oslo' } }],
  },
});

try {
  for await (const ev of agent.run({ input: 'Show me what the server can ask.' }))
    if (ev.type === 'tool.completed')
      console.log(`${ev.toolName}: ${ev.content.replace(/\s+/g, ' ').slice(0, 90)}`);
} finally {
  await agent.close();
}
