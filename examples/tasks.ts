/**
 * A long MCP call that outlives its process (SPEC 15.3), offline: the server makes a task of
 * a slow `report` call; the run polls it, and when the task still works after
 * `mcp.tasks.parkAfterMs` it parks on a task wait in a SQLite file and lets go of everything.
 * A second agent on the file (another process, in real life) resumes the run: it polls the
 * same task on, never sending the call again, and the model gets the report.
 *
 *   npx tsx examples/tasks.ts
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, scriptedModel } from '../src/index.js';
import { SqliteSessionStore } from '../src/session/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'muster-tasks-'));
const path = join(dir, 'sessions.db');
const serverState = join(dir, 'server');
mkdirSync(serverState);
const reports = fileURLToPath(new URL('./servers/report-tasks.mjs', import.meta.url));

/** Each "process": its own store handle on the file, its own agent (and server process). */
function agentOnFile(parkAfterMs: number, turns: Parameters<typeof scriptedModel>[0] = []) {
  const store = new SqliteSessionStore({ path });
  const agent = createAgent({
    model: scriptedModel(turns),
    sessionStore: store,
    mcpServers: {
      reports: {
        command: process.execPath,
        args: [reports],
        env: { REPORT_TASKS_STATE: serverState },
      },
    },
    // a task still working after parkAfterMs parks the run (default 30 s)
    mcp: { tasks: { parkAfterMs, minPollIntervalMs: 100 } },
    policy: { allow: ['mcp_connect:reports', 'mcp__reports'] },
  });
  return { agent, store };
}

try {
  // 1. the call becomes a task; still working after 300 ms, the run parks on a task wait
  const a = agentOnFile(300, [
    { toolCalls: [{ name: 'mcp__reports__report', arguments: { topic: 'churn' } }] },
  ]);
  const parked = await a.agent.send('Write the churn report.', { sessionId: 'report-1' });
  const wait = parked.waits![0]!;
  console.log(`[parked] ${parked.status}: ${wait.kind} wait, task ${wait.task?.status}`);
  await a.agent.close();
  a.store.close();

  // 2. any replica resumes: the same task is polled on (no second tools/call)
  const b = agentOnFile(30_000, [
    (req) => {
      const last = req.messages.at(-1);
      return { text: `Here it is: ${last?.role === 'tool' ? last.content : ''}` };
    },
  ]);
  for await (const ev of b.agent.resume('report-1')) {
    if (ev.type === 'tool.task') console.log(`[task] ${ev.status}`);
    if (ev.type === 'session.completed') console.log(`[completed] ${ev.content}`);
  }
  await b.agent.close();
  b.store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
