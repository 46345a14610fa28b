/**
 * The client under test for the official MCP conformance suite, built only on Muster's
 * public API. The suite runs it as `client.ts <serverUrl>` (scenario name in
 * MCP_CONFORMANCE_SCENARIO). It behaves as a host would, the same for every scenario:
 * connect the server through `agent.mcp`, then run the agent with a deterministic model
 * that calls every tool the server offers once, with arguments made from each tool's
 * input schema. Exit code 0 means every step worked.
 */
import { createAgent, scriptedModel } from '../src/index.js';
import type { ModelRequest, ScriptedToolCall } from '../src/index.js';
import { exampleArguments } from './example-arguments.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: client.ts <serverUrl>\n');
  process.exit(2);
}

/** A turn that calls every offered MCP tool once, then a final answer. */
function callEveryTool(request: ModelRequest): { toolCalls?: ScriptedToolCall[]; text?: string } {
  const calls = request.tools
    .filter((t) => t.name.startsWith('mcp__'))
    .map((t) => ({ name: t.name, arguments: exampleArguments(t.inputSchema) }));
  return calls.length > 0 ? { toolCalls: calls } : { text: 'no tools' };
}

const agent = createAgent({
  model: scriptedModel([callEveryTool, { text: 'done' }]),
  mcp: { strictConfig: true },
  mcpServers: { server: { type: 'http', url } },
  policy: { allow: ['mcp_connect:server', 'mcp__server'] },
});

let failed = false;
try {
  await agent.initialize();
  const [status] = agent.mcp.list();
  process.stderr.write(`status: ${JSON.stringify(status)}\n`);
  if (status?.status !== 'connected') failed = true;
  else {
    for await (const event of agent.run({ input: 'Use every tool once.' })) {
      if (event.type === 'tool.completed') {
        process.stderr.write(
          `tool ${event.toolName}: ${event.isError ? 'error' : 'ok'} ${event.content.slice(0, 200)}\n`,
        );
        if (event.errorCode) failed = true;
      }
    }
  }
} catch (err) {
  process.stderr.write(`client error: ${err instanceof Error ? err.message : String(err)}\n`);
  failed = true;
} finally {
  await agent.close();
}
process.exit(failed ? 1 : 0);
