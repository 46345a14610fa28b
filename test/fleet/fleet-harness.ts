import { randomInt } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import type { WorkerDb } from '../worker/worker-db.js';

// What the fleet suite's files share: worker processes with short leases and sweeps, the
// seed of the moments they are hurt at, and the gate of the call-log server's `gate` tool.

const FIXTURE = 'test/fixtures/worker/worker-process.ts';

/** A lease short enough that a dead worker's runs are taken over within seconds. */
export const LEASE_MS = 1500;

/**
 * Starts a worker process on `db` whose tool is the gate (or `extra.WORKER_TOOL`, with the
 * fixture's other `extra` settings); resolves once it takes jobs.
 */
export async function startWorker(
  db: WorkerDb,
  concurrency = 2,
  extra: Record<string, string> = {},
): Promise<ChildRun> {
  const child = startChild(
    FIXTURE,
    db.env({
      WORKER_TOOL: 'gate',
      WORKER_CONCURRENCY: String(concurrency),
      WORKER_LEASE_MS: String(LEASE_MS),
      WORKER_SWEEP_SECONDS: '1',
      WORKER_DRAIN_MS: '5000',
      ...extra,
    }),
  );
  await child.line('READY');
  return child;
}

/** The seed of this run's moments: `FLEET_SEED`, else a new one (printed, to replay). */
export function fleetSeed(): number {
  const given = process.env['FLEET_SEED'];
  const seed = given !== undefined && given !== '' ? Number(given) : randomInt(2 ** 31);
  console.log(`fleet seed ${seed} (FLEET_SEED=${seed} npm run test:fleet replays it)`);
  return seed;
}

/** A small deterministic generator (mulberry32): numbers in [0, 1) from `seed`. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lets the `gate` call of session `id` answer (now, or at once when it comes). */
export function openGate(db: WorkerDb, id: string): void {
  writeFileSync(`${db.log}.open-${id}`, '');
}

/** The pids of the gate servers that received a call of session `id`. */
export function gateCalls(db: WorkerDb, id: string): number[] {
  return gateLines(db, id).map((f) => Number(f[2]));
}

/** The idempotency keys of the gate calls of session `id`, in the order they came. */
export function gateKeys(db: WorkerDb, id: string): string[] {
  return gateLines(db, id).map((f) => f[3] ?? '-');
}

function gateLines(db: WorkerDb, id: string): string[][] {
  return db
    .calls()
    .map((l) => l.split(' '))
    .filter((f) => f[0] === 'gate' && f[1] === id);
}

/** The parent of process `pid` (Linux): the worker whose stdio server `pid` is. */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // the command may hold spaces and parentheses: the fields after its last ')' are fixed
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** The median and the maximum of `values`. */
export function p50AndMax(values: readonly number[]): { p50: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}
