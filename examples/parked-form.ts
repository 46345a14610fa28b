/**
 * A server's question answered later (SPEC 15.1), offline: an MCP server asks to confirm a
 * transfer with an `input_required` result; the run parks on an elicitation wait in a SQLite
 * file, holding the server's `requestState`; a second agent on the file answers the form; a
 * third resumes the run, which sends the call once more with the answer.
 *
 *   npx tsx examples/parked-form.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, scriptedModel } from '../src/index.js';
import { SqliteSessionStore } from '../src/session/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'muster-parked-form-'));
const path = join(dir, 'sessions.db');
const bank = fileURLToPath(new URL('./servers/confirming-bank.mjs', import.meta.url));

/** Each "process": its own store handle on the file, its own agent and model. */
function agentOnFile(turns: Parameters<typeof scriptedModel>[0] = []) {
  const store = new SqliteSessionStore({ path });
  const agent = createAgent({
    model: scriptedModel(turns),
    sessionStore: store,
    mcpServers: { bank: { command: process.execPath, args: [bank] } },
    mcp: {
      // a person answers later: the run parks instead of holding the process open
      handlers: { elicitation: async () => ({ action: 'park' }) },
    },
    policy: { allow: ['mcp_connect:bank', 'mcp__bank'] },
  });
  return { agent, store };
}

try {
  // 1. the server asks; the run parks with its question and its requestState
  const a = agentOnFile([
    {
      toolCalls: [{ name: 'mcp__bank__transfer', arguments: { to: 'ana', amountEur: 42 } }],
    },
  ]);
  const parked = await a.agent.send('Send ana 42 EUR.', { sessionId: 'transfer-1' });
  const wait = parked.waits![0]!;
  console.log(`[parked] ${parked.status}: ${wait.kind} "${wait.message}"`);
  await a.agent.close();
  a.store.close();

  // 2. the account holder answers the form, from anywhere that reaches the store
  const b = agentOnFile();
  const form = await b.agent.sessions.waits({ kind: 'elicitation', status: 'pending' });
  console.log(
    `[form] fields: ${Object.keys(form.waits[0]?.requestedSchema?.['properties'] ?? {})}`,
  );
  await b.agent.decide('transfer-1', wait.id, { action: 'accept', content: { ok: true } });
  await b.agent.close();
  b.store.close();

  // 3. any replica resumes: the call goes back to the server with the answer and its state
  const c = agentOnFile([
    (req) => {
      const last = req.messages.at(-1);
      return { text: `Done (${last?.role === 'tool' ? last.content : ''}).` };
    },
  ]);
  for await (const ev of c.agent.resume('transfer-1')) {
    if (ev.type === 'wait.decided') console.log(`[decided] applied: ${ev.applied}`);
    if (ev.type === 'session.completed') console.log(`[completed] ${ev.content}`);
  }
  await c.agent.close();
  c.store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
