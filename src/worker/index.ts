/**
 * The `muster-agent/worker` entry (SPEC 15.5): runs dispatched over PostgreSQL with pg-boss 10,
 * an optional peer dependency that only this entry imports. Any new export added here becomes
 * public API.
 *
 * @module muster-agent/worker
 */
export { Worker, createWorker } from './worker.js';
export type { EnqueuedRun } from './worker.js';
export type { WorkerOptions, EnqueueRequest, QueuedOutput } from './worker-options.js';
