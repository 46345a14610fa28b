/**
 * Watching a run from elsewhere (SPEC 15.2), offline: a run goes on in a SQLite file while a
 * UI (its own agent and store handle on the file: another process, in real life) attaches to
 * the session's event log, reloads and attaches again after the last `seq` it showed, and
 * steers the run, which takes the message before its next model request.
 *
 *   npx tsx examples/watching.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';
import type { AgentEvent, ModelRequest, WatchedEvent } from '../src/index.js';
import { SqliteSessionStore } from '../src/session/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'muster-watching-'));
const path = join(dir, 'sessions.db');
const sessionId = 'invoices';

// the lookup waits until the UI has attached and steered, so the run is surely going on
let lookupStarted!: () => void;
const started = new Promise<void>((resolve) => (lookupStarted = resolve));
let finishLookup!: () => void;
const finished = new Promise<void>((resolve) => (finishLookup = resolve));
const lookup = tool({
  name: 'lookup_invoices',
  description: 'Finds the invoices of a month.',
  input: z.object({ month: z.string() }),
  execute: async ({ month }) => {
    lookupStarted();
    await finished;
    return `2 invoices in ${month}`;
  },
});

/** The model's last turn says which user messages it was given. */
const answer = (req: ModelRequest) => {
  const asked = req.messages.flatMap((m) =>
    m.role === 'user' ? m.content.map((part) => (part.type === 'text' ? part.text : '')) : [],
  );
  return { text: `Done. I was asked: ${asked.map((t) => JSON.stringify(t)).join(', ')}.` };
};

// the process that runs the session
const runStore = new SqliteSessionStore({ path });
const runner = createAgent({
  model: scriptedModel([
    { toolCalls: [{ name: 'lookup_invoices', arguments: { month: 'February' } }] },
    answer,
  ]),
  tools: [lookup],
  sessionStore: runStore,
  policy: { allow: ['lookup_invoices'] },
});

// the UI's process: no run, the same file; it notices commits every 20 ms
const uiStore = new SqliteSessionStore({ path, eventLogPollMs: 20 });
const ui = createAgent({ model: scriptedModel([]), sessionStore: uiStore });

const show = (who: string, ev: WatchedEvent) =>
  console.log(
    `[${who}] ${ev.seq} ${ev.type}${ev.type === 'steering.delivered' ? `: ${ev.text}` : ''}`,
  );

try {
  const run = (async () => {
    const events: AgentEvent[] = [];
    for await (const ev of runner.run({ input: 'Check the February invoices.', sessionId }))
      events.push(ev);
    return events;
  })();
  await started;

  // 1. the UI attaches while the run goes on, shows two events, and the page reloads
  let lastSeq = 0;
  for await (const ev of ui.sessions.watch(sessionId, { afterSeq: lastSeq })) {
    show('ui', ev);
    lastSeq = ev.seq;
    if (lastSeq === 2) break;
  }
  console.log(`[reload] the page kept afterSeq ${lastSeq}`);

  // 2. the user types a message while the run works: the run takes it at its next step
  await ui.steer(sessionId, 'Also check the March invoices.');
  finishLookup();

  // 3. the reloaded page attaches after the last seq it showed; the watch ends with the run
  const seen: number[] = [];
  for await (const ev of ui.sessions.watch(sessionId, { afterSeq: lastSeq })) {
    show('ui', ev);
    seen.push(ev.seq);
    if (ev.type === 'session.completed') console.log(`[answer] ${ev.content}`);
  }

  const events = await run;
  const logged = events.filter((e) => e.type !== 'model.delta').map((e) => e.seq!);
  const union = [...Array.from({ length: lastSeq }, (_, i) => i + 1), ...seen];
  console.log(
    `[check] the run logged seq 1..${logged.at(-1)}; the UI saw each once, in order: ${JSON.stringify(union) === JSON.stringify(logged)}`,
  );
} finally {
  await runner.close();
  await ui.close();
  runStore.close();
  uiStore.close();
  rmSync(dir, { recursive: true, force: true });
}
