/**
 * A server's tool schemas under RE2 (docs/guide/server-tool-schemas.md), offline: an
 * in-process MCP server lists tools whose input schemas have a `pattern`. Muster checks each
 * call's arguments against the listed schema, the patterns under RE2, before anything is sent:
 * a matching call runs, a non-matching one is refused, a pattern that would backtrack for
 * hours under JavaScript's engine fails to match at once, and one RE2 cannot run fails closed.
 *
 *   npx tsx examples/server-tool-schemas.ts
 */
import { z } from 'zod';
import { createSdkMcpServer, MusterError, sdkTool } from '../src/index.js';
import { McpClientManager } from '../src/mcp/mcp-entry.js';

const billing = createSdkMcpServer({
  name: 'billing',
  tools: [
    sdkTool(
      'find_invoice',
      'Finds an invoice.',
      { id: z.string().regex(/^INV-\d{1,6}$/) },
      ({ id }) => ({
        content: [{ type: 'text', text: `${id}: 120 EUR, paid` }],
      }),
    ),
    // catastrophic under a backtracking engine: on 40 `a`s and a `!`, hours
    sdkTool('tag', 'Tags a record.', { tag: z.string().regex(/^(a+)+$/) }, () => ({
      content: [],
    })),
    // a lookahead: RE2 does not run it
    sdkTool('set_pin', 'Sets a PIN.', { pin: z.string().regex(/^(?=.*\d)\w{4,8}$/) }, () => ({
      content: [],
    })),
  ],
});

const manager = new McpClientManager(
  { billing: { type: 'sdk', server: billing } },
  { strictConfig: true }, // only the server above: no .muster/mcp.json files
);

async function call(tool: string, args: Record<string, unknown>): Promise<void> {
  try {
    const result = await manager.callTool('billing', tool, args);
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    console.log(`[sent] ${tool}: ${text}`);
  } catch (err) {
    if (!MusterError.isInstance(err)) throw err;
    console.log(`[refused] ${tool}: ${err.code}, not sent`);
  }
}

try {
  await manager.connectAll();
  await call('find_invoice', { id: 'INV-7' });
  await call('find_invoice', { id: 'INV-7; drop table' });
  const started = performance.now();
  await call('tag', { tag: `${'a'.repeat(40)}!` });
  console.log(`[time] under a second: ${performance.now() - started < 1000}`);
  await call('set_pin', { pin: '12ab' });
} finally {
  await manager.close();
}
