import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { startChild } from '../support/child-agent.js';
import type { ChildRun } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';

// SPEC 15.1 at scale on PostgreSQL: 1,000 runs parked by one process, decided by another, then
// resumed by three processes racing over every session. The store's lease fences them: each
// parked call runs exactly once, and every session completes.

const FIXTURE = 'test/fixtures/session/park-replica.ts';
const SESSIONS = 1_000;
const url = databaseUrl();

interface PhaseResult {
  readonly name: string;
  readonly counts: Record<string, number>;
  readonly unexpected: string[];
  readonly ms: number;
  readonly cpuMs: number;
}

const schema = `muster_park_replicas_${randomBytes(5).toString('hex')}`;
const s = `"${schema}"`;
let pool: pg.Pool | undefined;
const children: ChildRun[] = [];
afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  await pool?.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await pool?.end();
});

function start(env: Record<string, string>, stdin = false): ChildRun {
  const child = startChild(
    FIXTURE,
    { PARK_DB: url!, PARK_SCHEMA: schema, PARK_SESSIONS: String(SESSIONS), ...env },
    { stdin },
  );
  children.push(child);
  return child;
}

async function finish(child: ChildRun): Promise<PhaseResult> {
  const result = JSON.parse(await child.line('RESULT')) as PhaseResult;
  expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
  return result;
}

describe.skipIf(!url)('1,000 parked runs on PostgreSQL', () => {
  it('parked by one process, decided by another, resumed by three racing ones: each call runs once, every session completes', async () => {
    pool = new pg.Pool({ connectionString: url, max: 4 });
    const query = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
      (await pool!.query<T>(sql, params)).rows;
    const store = new PostgresSessionStore({ pool, schema });
    await store.list(); // creates the schema
    await query(
      `CREATE TABLE ${s}.test_executions (session_id TEXT, call_id TEXT, job TEXT, replica TEXT)`,
    );
    await query(`CREATE TABLE ${s}.test_decisions (session_id TEXT PRIMARY KEY, wait_id TEXT)`);
    const timings: Record<string, { ms: number; cpuMs: number }> = {};

    // the resumers start now (their startup overlaps the parking) and wait for the go
    const resumers = ['r0', 'r1', 'r2'].map((name) =>
      start({ PARK_MODE: 'resume', PARK_NAME: name, PARK_CONCURRENCY: '16' }, true),
    );

    const parked = await finish(start({ PARK_MODE: 'park' }));
    timings['park'] = parked;
    expect(parked.counts).toEqual({ parked: SESSIONS });
    const statuses = await query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM ${s}.muster_sessions GROUP BY status`,
    );
    expect(statuses).toEqual([{ status: 'parked', n: SESSIONS }]);
    expect(await query(`SELECT 1 FROM ${s}.test_executions`)).toEqual([]);

    const decided = await finish(start({ PARK_MODE: 'decide' }));
    timings['decide'] = decided;
    expect(decided.counts).toEqual({ decided: SESSIONS });
    expect(await query(`SELECT 1 FROM ${s}.test_executions`)).toEqual([]);

    await Promise.all(resumers.map((r) => r.line('READY')));
    for (const r of resumers) r.child.stdin!.write('go\n');
    const resumed = await Promise.all(resumers.map(finish));
    for (const r of resumed) {
      timings[r.name] = r;
      expect(r.unexpected, r.name).toEqual([]);
      // every session was tried by every process: won, or lost to another one
      const tried = Object.values(r.counts).reduce((a, b) => a + b, 0);
      expect(tried, r.name).toBe(SESSIONS);
      expect(r.counts['not completed'], r.name).toBeUndefined(); // parked again, or no answer
    }
    const wins = resumed.map((r) => r.counts['completed'] ?? 0);
    expect(wins.reduce((a, b) => a + b, 0)).toBe(SESSIONS);

    // each parked call ran exactly once, with the arguments its session's wait approved
    const [runs] = await query<{ n: number; sessions: number; wrong: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT session_id)::int AS sessions,
              count(*) FILTER (WHERE job <> session_id OR call_id <> 'call_pay')::int AS wrong
         FROM ${s}.test_executions`,
    );
    expect(runs).toEqual({ n: SESSIONS, sessions: SESSIONS, wrong: 0 });
    // each ran in the process whose resume completed it
    const byReplica = await query<{ replica: string; n: number }>(
      `SELECT replica, count(*)::int AS n FROM ${s}.test_executions GROUP BY replica ORDER BY replica`,
    );
    expect(byReplica).toEqual(
      resumed
        .filter((r) => (r.counts['completed'] ?? 0) > 0)
        .map((r) => ({ replica: r.name, n: r.counts['completed'] })),
    );
    expect(
      await query(`SELECT status, count(*)::int AS n FROM ${s}.muster_sessions GROUP BY status`),
    ).toEqual([{ status: 'completed', n: SESSIONS }]);
    expect(await query(`SELECT 1 FROM ${s}.muster_waits`)).toEqual([]);
    // every tool result records the decision of its session's wait
    const [recorded] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${s}.muster_messages m
         JOIN ${s}.test_decisions d ON d.session_id = m.session_id
        WHERE m.body->>'role' = 'tool'
          AND m.body->'decidedBy'->>'waitId' = d.wait_id
          AND m.body->'decidedBy'->>'reason' = 'batch approval by decide'`,
    );
    expect(recorded!.n).toBe(SESSIONS);
    console.info(`parked runs, ${SESSIONS} sessions (wall/CPU ms): ${JSON.stringify(timings)}`);
  });
});
