// One variant's callers in a measurement process of bench/upstream-gain.ts: imported once
// per variant with `?upstream=<label>`, so that the resolve hook gives each import its own
// copy of this module, of Muster's dist/ and of the official client (the variant's patched
// copy). Types: echo-variant.d.mts.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createAgent } from '../../dist/index.js';

const ARGS = { text: 'hello' };

/** Where `@modelcontextprotocol/client` resolved for this variant. */
export const clientURL = import.meta.resolve('@modelcontextprotocol/client');

/** @param {import('./echo-variant.d.mts').Launch} server */
export async function openRaw(server) {
  const client = new Client({ name: 'upstream-gain', version: '0' });
  await client.connect(
    new StdioClientTransport({ command: server.command, args: [...server.args] }),
  );
  await client.listTools();
  return {
    call: () => client.callTool({ name: 'echo', arguments: ARGS }),
    close: () => client.close(),
  };
}

/** @param {import('./echo-variant.d.mts').Launch} server */
export async function openMuster(server) {
  const agent = createAgent({
    mcp: { strictConfig: true, protocol: { mode: 'legacy' } },
    mcpServers: { b: { command: server.command, args: [...server.args] } },
    policy: { allow: ['mcp_connect:*', 'mcp__*'] },
  });
  await agent.initialize();
  const status = agent.mcp.list()[0];
  if (status?.status !== 'connected') throw new Error(`echo-variant: muster ${status?.status}`);
  return {
    call: () => agent.mcp.callTool('b', 'echo', ARGS),
    close: () => agent.close(),
  };
}
