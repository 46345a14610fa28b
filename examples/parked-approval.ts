/**
 * A run that waits for a person without holding a process (SPEC 15.1), offline: an agent
 * parks a payment on an approval wait in a SQLite file and lets go of everything; a second
 * agent on the same file (another process, in real life) decides it; a third resumes the run,
 * which makes the payment exactly once.
 *
 *   npx tsx examples/parked-approval.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';
import { SqliteSessionStore } from '../src/session/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'muster-parked-'));
const path = join(dir, 'sessions.db');
const payments: number[] = [];

/** Each "process": its own store handle on the file, its own agent and model. */
function agentOnFile(turns: Parameters<typeof scriptedModel>[0] = []) {
  const store = new SqliteSessionStore({ path });
  const pay = tool({
    name: 'pay_invoice',
    description: 'Pays an invoice.',
    input: z.object({ invoice: z.string(), amountEur: z.number() }),
    execute: ({ invoice, amountEur }) => {
      payments.push(amountEur);
      return `paid ${invoice}: ${amountEur} EUR`;
    },
  });
  const model = scriptedModel(turns);
  // `ask` with no approver parks instead of denying
  const agent = createAgent({ model, tools: [pay], sessionStore: store, policy: { park: true } });
  return { agent, store };
}

try {
  // 1. the run parks: its transcript, the pending call and the wait are in the file
  const a = agentOnFile([
    { toolCalls: [{ name: 'pay_invoice', arguments: { invoice: 'INV-7', amountEur: 120 } }] },
  ]);
  const parked = await a.agent.send('Pay invoice INV-7.', { sessionId: 'invoice-7' });
  const wait = parked.waits![0]!;
  console.log(
    `[parked] ${parked.status}: ${wait.kind} of ${wait.toolName} ${JSON.stringify(wait.arguments)}`,
  );
  await a.agent.close();
  a.store.close();

  // 2. somebody decides, from anywhere that reaches the store
  const b = agentOnFile();
  const inbox = await b.agent.sessions.waits({ status: 'pending' });
  console.log(`[inbox] ${inbox.waits.length} pending: ${inbox.waits.map((w) => w.id).join(', ')}`);
  await b.agent.decide(
    'invoice-7',
    wait.id,
    { decision: 'allow', reason: 'approved by ana' },
    {
      fingerprint: wait.fingerprint,
    },
  );
  await b.agent.close();
  b.store.close();

  // 3. any replica resumes the run; the call runs once, with the approved arguments
  const c = agentOnFile([
    (req) => {
      const last = req.messages.at(-1);
      return { text: `Done (${last?.role === 'tool' ? last.content : ''}).` };
    },
  ]);
  for await (const ev of c.agent.resume('invoice-7')) {
    if (ev.type === 'wait.decided') console.log(`[decided] applied: ${ev.applied}`);
    if (ev.type === 'tool.completed') console.log(`[tool] ${ev.toolName} executed: ${ev.executed}`);
    if (ev.type === 'session.completed') console.log(`[completed] ${ev.content}`);
  }
  const session = await c.store.get('invoice-7');
  const result = session!.messages.find((m) => m.role === 'tool');
  console.log(
    `[recorded] ${JSON.stringify(result?.role === 'tool' ? result.decidedBy : undefined)}`,
  );
  console.log(`[payments] ${JSON.stringify(payments)}`);
  await c.agent.close();
  c.store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
