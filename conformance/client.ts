/**
 * The client under test for the official MCP conformance suite, built only on Muster's
 * public API. The suite runs it as `client.ts <serverUrl>` (scenario name in
 * MCP_CONFORMANCE_SCENARIO). It behaves as a host would, the same for every scenario:
 * connect the server with the standalone `McpClientManager` (`muster-agent/mcp`), then call
 * every tool the server offers once, with arguments made from each tool's input schema. The
 * host answers elicitations by accepting what the form proposes (its defaults); for `auth/*`
 * scenarios it signs in through `mcp.oauth` (see oauth-host.ts). Exit code 0 means every
 * step worked.
 */
import { McpClientManager } from '../src/mcp/mcp-entry.js';
import { exampleArguments } from './example-arguments.js';
import { oauthFor } from './oauth-host.js';

const url = process.argv[2];
if (!url) {
  process.stderr.write('usage: client.ts <serverUrl>\n');
  process.exit(2);
}

const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
const oauth = scenario.startsWith('auth/') ? { server: await oauthFor(scenario, url) } : undefined;

const manager = new McpClientManager(
  { server: { type: 'http', url } },
  {
    strictConfig: true,
    ...(oauth ? { oauth } : {}),
    handlers: {
      // a host that accepts every form as proposed: Muster fills in the schema's defaults
      elicitation: async () => ({ action: 'accept', content: {} }),
    },
  },
);

let failed = false;
try {
  const [summary] = await manager.connectAll();
  process.stderr.write(`status: ${JSON.stringify(summary)}\n`);
  if (summary?.status !== 'connected') failed = true;
  else {
    for (const t of await manager.listTools('server')) {
      try {
        const result = await manager.callTool(
          'server',
          t.name,
          exampleArguments(t.inputSchema as Record<string, unknown>),
        );
        process.stderr.write(
          `tool ${t.name}: ${result.isError ? 'error' : 'ok'} ${JSON.stringify(result.content).slice(0, 200)}\n`,
        );
      } catch (err) {
        process.stderr.write(`tool ${t.name}: failed ${(err as Error).message}\n`);
        failed = true;
      }
    }
  }
} catch (err) {
  process.stderr.write(`client error: ${err instanceof Error ? err.message : String(err)}\n`);
  failed = true;
} finally {
  await manager.close();
}
process.exit(failed ? 1 : 0);
