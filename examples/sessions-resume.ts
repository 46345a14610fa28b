/**
 * Resuming a run after its process died (docs/guide/sessions.md), offline: a worker process
 * runs a session in a SQLite file and is killed in the middle of a tool call. Another process
 * resumes the session once the dead run's lease has expired: the call that may have run is
 * reported to the model as TOOL_OUTCOME_UNKNOWN (never replayed), and the run completes.
 *
 *   npx tsx examples/sessions-resume.ts
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { createAgent, MusterError, scriptedModel, tool } from '../src/index.js';
import type { ScriptedTurn } from '../src/index.js';
import { SqliteSessionStore } from '../src/session/sqlite.js';

const sendMail = tool({
  name: 'send_mail',
  description: 'Sends an email.',
  input: z.object({ to: z.string() }),
  execute: async ({ to }) => {
    process.send?.('in-call'); // the worker is killed here: did the mail go out?
    await new Promise(() => {});
    return `sent to ${to}`;
  },
});

function agentOn(path: string, turns: ScriptedTurn[]) {
  const store = new SqliteSessionStore({ path });
  const agent = createAgent({
    model: scriptedModel(turns),
    tools: [sendMail],
    sessionStore: store,
    sessionLeaseMs: 1000, // a dead run's session can be resumed 1 s after its last renewal
    policy: { allow: ['send_mail'] },
  });
  return { agent, store };
}

if (process.argv[2] === 'worker') {
  const { agent } = agentOn(process.argv[3]!, [
    { toolCalls: [{ name: 'send_mail', arguments: { to: 'ana@example.com' } }] },
  ]);
  await agent.send('Mail Ana the report.', { sessionId: 'report' });
} else {
  const dir = mkdtempSync(join(tmpdir(), 'muster-resume-'));
  const path = join(dir, 'sessions.db');
  const worker = fork(import.meta.filename, ['worker', path]); // with this process's loader
  await new Promise((resolve) => worker.once('message', resolve));
  worker.kill('SIGKILL');
  console.log('[worker] killed during send_mail');

  const { agent, store } = agentOn(path, [
    (req) => {
      const last = req.messages.at(-1);
      return { text: `Not sure the mail went out: ${last?.role === 'tool' ? last.content : ''}` };
    },
  ]);
  try {
    console.log(`[stored] status ${(await store.get('report'))?.status}`);
    for (;;) {
      try {
        for await (const ev of agent.resume('report'))
          if (ev.type === 'session.completed') console.log(`[resumed] ${ev.content}`);
        break;
      } catch (err) {
        // the dead run's lease has not expired yet
        if (!MusterError.isInstance(err) || err.code !== 'SESSION_ALREADY_RUNNING') throw err;
        await sleep(200);
      }
    }
  } finally {
    await agent.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
