/**
 * Progress, timeouts and reconnects (docs/guide/reliability.md), offline, against a test
 * server that misbehaves on request: progress resets a call's timeout, a call that hangs
 * times out, a server that crashes mid-call is reconnected when it is next used.
 *
 *   npx tsx examples/reliability.ts
 */
import { fileURLToPath } from 'node:url';
import { createAgent, scriptedModel } from '../src/index.js';

const server = fileURLToPath(new URL('../test/fixtures/faulty/faulty-stdio.mjs', import.meta.url));
const call = (tool: string, args: object = {}) => ({
  toolCalls: [{ name: `mcp__flaky__${tool}`, arguments: args }],
});

const agent = createAgent({
  model: scriptedModel([
    call('progress', { steps: 3, intervalMs: 400 }), // 1.2 s in all, a report every 0.4 s
    call('hang'), // never answers
    call('crash'), // the process exits in the middle of the call
    call('count'), // reconnects first: a new process answers
    { text: 'done' },
  ]),
  mcpServers: { flaky: { command: process.execPath, args: [server] } },
  mcp: {
    strictConfig: true,
    protocol: { mode: 'legacy' }, // this test server speaks only the older handshake
    operation: { timeoutMs: 700 }, // each request; every progress report starts it again
  },
  policy: { allow: ['mcp_connect:flaky', 'mcp__flaky'] },
});

const started = Date.now();
const at = () => `${String(Date.now() - started).padStart(5)} ms`;
try {
  for await (const ev of agent.run({ input: 'Exercise the server.' })) {
    if (ev.type === 'tool.progress') console.log(`${at()} progress ${ev.progress}/${ev.total}`);
    if (ev.type === 'mcp.server.status') console.log(`${at()} server ${ev.status}`);
    if (ev.type === 'tool.completed')
      console.log(`${at()} ${ev.toolName}: ${ev.errorCode ?? ev.content}`);
  }
  // outside a run: a direct call with its own bounds
  const direct = await agent.mcp
    .callTool('flaky', 'hang', {}, { timeoutMs: 200 })
    .catch((e: { code: string }) => e.code);
  console.log(`${at()} direct call: ${typeof direct === 'string' ? direct : 'answered'}`);
} finally {
  await agent.close();
}
