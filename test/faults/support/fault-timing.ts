/**
 * Timing for the fault suite: every bound is measured with `performance.now()` around real
 * events (an event arriving, a promise settling), never by sleeping and then looking.
 */
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentEvent, McpServerStatusValue } from '../../../src/index.js';
import type { McpEvent } from '../../../src/mcp/mcp-entry.js';
import { alive } from './faulty-servers.js';

/** How long `promise` took to settle, in milliseconds, with its outcome. */
export async function timed<T>(
  promise: Promise<T>,
): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

/**
 * Polls `check` every 10 ms until it returns a value other than `undefined`/`false`; fails
 * with `what` after `timeoutMs`. For waiting on a state of another process (a file written,
 * a pid gone), not for timing assertions.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(10);
  }
}

/** Resolves once none of `pids` exists any more; fails after `timeoutMs` naming the survivors. */
export async function allGone(pids: readonly number[], timeoutMs = 3_000): Promise<void> {
  await waitFor(
    () => pids.every((pid) => !alive(pid)),
    `processes still running: ${pids.filter(alive).join(', ')}`,
    timeoutMs,
  ).catch(() => {
    throw new Error(`processes still running after ${timeoutMs} ms: ${pids.filter(alive)}`);
  });
}

/** An event with the moment (`performance.now()`) it reached the test. */
export interface Stamped<E> {
  readonly event: E;
  readonly at: number;
}

/** Records events as they arrive; `next(predicate)` resolves with the first (past or future) match. */
export class EventLog<E extends AgentEvent | McpEvent> {
  readonly stamped: Stamped<E>[] = [];
  readonly #waiters: { match: (e: E) => boolean; resolve: (s: Stamped<E>) => void }[] = [];

  /** The function to pass as an `onEvent` observer. */
  readonly push = (event: E): void => {
    const entry = { event, at: performance.now() };
    this.stamped.push(entry);
    for (const w of [...this.#waiters]) {
      if (!w.match(event)) continue;
      this.#waiters.splice(this.#waiters.indexOf(w), 1);
      w.resolve(entry);
    }
  };

  /** Every event so far. */
  get events(): E[] {
    return this.stamped.map((s) => s.event);
  }

  /** The first event so far or from now on that matches, with its arrival time. */
  next(match: (e: E) => boolean, from = 0): Promise<Stamped<E>> {
    const seen = this.stamped.slice(from).find((s) => match(s.event));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** The first status event of `server` with `status`, after the first `from` events. */
  status(server: string, status: McpServerStatusValue, from = 0): Promise<Stamped<E>> {
    return this.next(
      (e) => e.type === 'mcp.server.status' && e.server === server && e.status === status,
      from,
    );
  }
}

/** Races `promise` against a deadline, failing with `what` (so a hung case fails readably). */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${timeoutMs} ms: ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Records a measured time under `label` (a row of docs/reliability.md) when the environment
 * variable `FAULT_TIMINGS` names a file: one JSON line per measure, for the table. Returns `ms`.
 */
export function measured(label: string, ms: number): number {
  const file = process.env['FAULT_TIMINGS'];
  if (file) appendFileSync(file, `${JSON.stringify({ label, ms: Math.round(ms) })}\n`);
  return ms;
}
