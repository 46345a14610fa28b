// Run as a separate process by stdio-env.test.ts (node --import tsx): connects to a stdio
// fixture through createTransport, calls get_env, closes, and prints the kept stderr tail
// as JSON on stdout. The test then checks this process's own stderr: a child's stderr
// must be captured, never passed through.
import { Client } from '@modelcontextprotocol/client';
import { createTransport } from '../../../src/mcp/transports/index.js';

const fixture = process.argv[2];
if (fixture === undefined) throw new Error('usage: stderr-harness.ts <fixture.mjs>');
const handle = createTransport(
  { command: process.execPath, args: [fixture] },
  { server: 'env', maxResponseBytes: 1 << 20, stderrBytes: 4096 },
);
const client = new Client({ name: 'stderr-harness', version: '0.0.0' });
await client.connect(handle.transport);
await client.callTool({ name: 'get_env', arguments: {} });
await client.close();
process.stdout.write(JSON.stringify({ tail: handle.stderrTail?.() ?? null }));
