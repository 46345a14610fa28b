/**
 * One worker process of the fleet benchmark (bench/worker-fleet.ts): the counting agent
 * (bench/fleet-runs.ts) on the PostgreSQL store and `createWorker` taking its jobs. Prints
 * `READY <pid>` once its MCP server is connected, starts taking jobs when a line comes on
 * stdin (so every process's start-up is over before any takes a job) and prints `STARTED`;
 * on SIGTERM it drains, stops and exits 0.
 *
 *   FLEET_DB=<postgres url> FLEET_SCHEMA=<store schema> FLEET_BOSS_SCHEMA=<pg-boss schema>
 *   FLEET_LOG=<call log file> FLEET_CONCURRENCY=<n>
 */
import { countingAgent } from './fleet-runs.js';
import { loadStores, loadWorker } from './muster.js';

const env = (name: string) => process.env[name] ?? '';
const { PostgresSessionStore } = (await loadStores()).postgres;
const { createWorker } = await loadWorker();

const store = new PostgresSessionStore({
  connectionString: env('FLEET_DB'),
  schema: env('FLEET_SCHEMA'),
});
const agent = countingAgent(store, env('FLEET_LOG'));
const worker = createWorker({
  agent,
  connectionString: env('FLEET_DB'),
  schema: env('FLEET_BOSS_SCHEMA'),
  concurrency: Number(env('FLEET_CONCURRENCY') || '4'),
  onError: (err) => process.stderr.write(`fleet worker: ${String(err)}\n`),
});

process.once('SIGTERM', () => {
  void (async () => {
    await worker.drain();
    await worker.stop();
    await agent.close();
    await store.close();
    process.exit(0);
  })();
});

await agent.initialize();
process.stdout.write(`READY ${process.pid}\n`);
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
await worker.start();
process.stdout.write(`STARTED ${process.pid}\n`);
