/**
 * Workers (SPEC 15.5): runs queued in PostgreSQL with pg-boss and taken by a worker, which
 * here is this same process (in real life: several processes, each with `createWorker` and
 * `start()`; a web process only enqueues). Needs DATABASE_URL; without it, it says so and
 * stops. It makes two schemas of its own and drops them at the end.
 *
 *   DATABASE_URL=postgres://localhost/test npx tsx examples/workers.ts
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { z } from 'zod';
import { createAgent, scriptedModel, tool } from '../src/index.js';
import type { ModelRequest } from '../src/index.js';
import { PostgresSessionStore } from '../src/session/postgres.js';
import { createWorker } from '../src/worker/index.js';

const url = process.env['DATABASE_URL'];
if (!url) {
  console.log('Set DATABASE_URL to a PostgreSQL database to run this example.');
  process.exit(0);
}
const id = randomBytes(4).toString('hex');
const schema = `muster_example_${id}`;
const bossSchema = `pgboss_example_${id}`;

const weather = tool({
  name: 'weather',
  description: 'The weather in a city.',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `sunny in ${city}`,
});
/** Asks for the weather of the city the user named, then answers with it. */
const turn = (req: ModelRequest) => {
  const last = req.messages.at(-1);
  if (last?.role === 'tool') return { text: `Forecast: ${JSON.stringify(last.content)}` };
  const city = /in (\w+)/.exec(JSON.stringify(req.messages[0]))?.[1] ?? 'Paris';
  return { toolCalls: [{ name: 'weather', arguments: { city } }] };
};

// #region worker
const store = new PostgresSessionStore({ connectionString: url, schema });
const agent = createAgent({
  model: scriptedModel(Array.from({ length: 10 }, () => turn)),
  tools: [weather],
  policy: { allow: ['weather'] },
  sessionStore: store,
});
const worker = createWorker({ agent, connectionString: url, schema: bossSchema, concurrency: 2 });
await worker.start();
process.once('SIGTERM', () => void worker.drain().then(() => worker.stop()));

const queued = await Promise.all(
  ['Oslo', 'Lima', 'Kyoto'].map((city) => worker.enqueue({ input: `Weather in ${city}?` })),
);
// #endregion worker

// the store is the truth: wait until every queued session has completed
for (;;) {
  const states = await Promise.all(queued.map((q) => store.get(q.sessionId)));
  if (states.every((s) => s?.status === 'completed')) {
    for (const s of states) console.log(`${s!.id}: ${s!.finalContent}`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

await worker.drain();
await worker.stop();
await agent.close();
await store.close();
const c = new pg.Client({ connectionString: url });
await c.connect();
await c.query(`DROP SCHEMA "${schema}" CASCADE; DROP SCHEMA "${bossSchema}" CASCADE`);
await c.end();
