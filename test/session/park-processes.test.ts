import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionStore, ToolResultMessage, Wait } from '../../src/index.js';
import { SqliteSessionStore } from '../../src/session/sqlite.js';
import { PostgresSessionStore } from '../../src/session/postgres.js';
import { startChild } from '../support/child-agent.js';
import { databaseUrl } from '../support/database.js';

// SPEC 15 and 15.1: a run parks in one process, which exits; another process decides the wait,
// a third resumes the run. The store is all they share.

const FIXTURE = 'test/fixtures/session/park-agent.ts';
const PAY_ARGUMENTS = { amount: 42, to: 'ana' }; // what the fixture's model asks for
const url = databaseUrl();

interface Execution {
  readonly session_id: string;
  readonly call_id: string;
  readonly args: string;
  readonly pid: string;
}

interface Backend {
  readonly env: Record<string, string>;
  store(): SessionStore & { close(): unknown };
  /** The executions the fixture's tool counted (none before its table exists). */
  executions(): Promise<Execution[]>;
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'muster-park-'));
  const path = join(dir, 'sessions.db');
  return {
    env: { PARK_STORE: 'sqlite', PARK_DB: path },
    store: () => new SqliteSessionStore({ path }),
    executions: async () => {
      const db = new Database(path, { readonly: true });
      try {
        const table = db
          .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'test_executions'")
          .get();
        return table ? (db.prepare('SELECT * FROM test_executions').all() as Execution[]) : [];
      } finally {
        db.close();
      }
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  const schema = `muster_park_${randomBytes(5).toString('hex')}`;
  const query = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  };
  return {
    env: { PARK_STORE: 'postgres', PARK_DB: url!, PARK_SCHEMA: schema },
    store: () => new PostgresSessionStore({ connectionString: url!, schema }),
    executions: async () => {
      const [table] = await query(`SELECT to_regclass('"${schema}".test_executions') AS t`);
      return table?.t
        ? ((await query(`SELECT * FROM "${schema}".test_executions`)) as Execution[])
        : [];
    },
    cleanup: async () => void (await query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)),
  };
}

const backends: [string, () => Backend][] = [['SQLite', sqliteBackend]];
if (url) backends.push(['PostgreSQL', postgresBackend]);
const made: Backend[] = [];
afterAll(async () => {
  for (const b of made) await b.cleanup();
});

interface Event {
  readonly type: string;
  readonly [key: string]: unknown;
}
interface StepResult {
  readonly pid: number;
  readonly status?: string;
  readonly waits?: Wait[];
  readonly wait?: Wait;
  readonly events?: Event[];
  readonly error?: string;
}

/** Runs one step of the parked run in a process of its own; it must exit by itself, with 0. */
async function step(
  b: Backend,
  sessionId: string,
  mode: 'run' | 'decide' | 'resume',
  extra: Record<string, string> = {},
): Promise<StepResult> {
  const child = startChild(FIXTURE, {
    ...b.env,
    PARK_SESSION: sessionId,
    PARK_MODE: mode,
    ...extra,
  });
  const result = JSON.parse(await child.line('RESULT')) as Omit<StepResult, 'pid'>;
  const exited = await child.exited;
  expect(exited, `${mode}: ${child.stderr()}`).toEqual({ code: 0, signal: null });
  return { ...result, pid: child.child.pid! };
}

/** What the store holds of a session and its waits, read in a fresh connection. */
async function storeView(b: Backend, sessionId: string, waitId: string) {
  const store = b.store();
  try {
    return {
      session: await store.get(sessionId),
      wait: await store.waits!.get(sessionId, waitId),
      waits: await store.waits!.list({ sessionId }),
    };
  } finally {
    await store.close();
  }
}

/** Parks a fresh session in a process that then exits; returns its one wait. */
async function park(b: Backend, sessionId: string): Promise<Wait> {
  const parked = await step(b, sessionId, 'run');
  expect(parked.error).toBeUndefined();
  expect(parked.status).toBe('parked');
  expect(parked.events?.at(-1)?.type).toBe('session.parked');
  expect(parked.waits).toHaveLength(1);
  const wait = parked.waits![0]!;
  expect(wait).toMatchObject({
    sessionId,
    kind: 'approval',
    callId: 'call_pay',
    toolName: 'pay',
    arguments: PAY_ARGUMENTS,
    status: 'pending',
  });
  return wait;
}

describe.each(backends)('a parked run across processes on %s', (_name, makeBackend) => {
  it('parks in one process, is decided in a second and completed in a third: the tool runs once, as approved', async () => {
    const b = makeBackend();
    made.push(b);
    const sessionId = 'park-decide-resume';

    const wait = await park(b, sessionId);
    const parked = await storeView(b, sessionId, wait.id);
    expect(parked.session?.status).toBe('parked');
    expect(parked.wait).toEqual(wait);
    expect(await b.executions()).toEqual([]);

    const reason = 'approved by ana (ticket 7)';
    const decided = await step(b, sessionId, 'decide', { PARK_WAIT: wait.id, PARK_REASON: reason });
    expect(decided.wait).toMatchObject({
      id: wait.id,
      status: 'decided',
      decision: { decision: 'allow', reason },
    });
    expect(await b.executions()).toEqual([]);

    const resumed = await step(b, sessionId, 'resume');
    expect(resumed.error).toBeUndefined();
    const types = resumed.events!.map((e) => e.type);
    expect(types).not.toContain('session.parked');
    expect(types).not.toContain('session.failed');
    expect(resumed.events!.filter((e) => e.type === 'wait.decided')).toMatchObject([
      { waitId: wait.id, callId: 'call_pay', applied: true, expired: false },
    ]);
    expect(resumed.events!.filter((e) => e.type === 'session.completed')).toMatchObject([
      { sessionId, content: 'Paid.' },
    ]);

    // the tool ran once, in the resuming process, with the arguments the person approved
    const executions = await b.executions();
    expect(executions).toEqual([
      {
        session_id: sessionId,
        call_id: 'call_pay',
        args: JSON.stringify(PAY_ARGUMENTS),
        pid: String(resumed.pid),
      },
    ]);
    const after = await storeView(b, sessionId, wait.id);
    expect(after.session?.status).toBe('completed');
    const results = after.session!.messages.filter(
      (m): m is ToolResultMessage => m.role === 'tool',
    );
    expect(results).toMatchObject([
      {
        callId: 'call_pay',
        content: 'paid 42 to ana',
        isError: false,
        decidedBy: { waitId: wait.id, decision: 'allow', reason },
      },
    ]);
    // the wait was used up with the call it decided
    expect(after.waits.waits).toEqual([]);
  });

  it('a resume in another process before the decision parks again and changes nothing in the store', async () => {
    const b = makeBackend();
    made.push(b);
    const sessionId = 'park-early-resume';
    const wait = await park(b, sessionId);
    const before = await storeView(b, sessionId, wait.id);
    expect(before.session?.status).toBe('parked');

    const early = await step(b, sessionId, 'resume');
    expect(early.error).toBeUndefined();
    expect(early.events!.map((e) => e.type)).toEqual(['session.parked']);
    expect(early.events![0]).toMatchObject({ sessionId, waits: [{ id: wait.id }] });

    expect(await storeView(b, sessionId, wait.id)).toEqual(before);
    expect(await b.executions()).toEqual([]);
  });
});

describe.each(backends)(
  'a server asking for input, answered across processes on %s',
  (_name, makeBackend) => {
    it('input_required parks in one process, is answered in a second and retried once in a third', async () => {
      const b = makeBackend();
      made.push(b);
      const dir = mkdtempSync(join(tmpdir(), 'muster-input-park-'));
      const log = join(dir, 'calls.jsonl');
      const effects = join(dir, 'effects.txt');
      const input = { PARK_INPUT_LOG: log, PARK_INPUT_EFFECTS: effects };
      const calls = () =>
        existsSync(log)
          ? readFileSync(log, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Record<string, unknown>)
          : [];
      const effectLines = () =>
        existsSync(effects) ? readFileSync(effects, 'utf8').split('\n').filter(Boolean) : [];
      try {
        const sessionId = 'input-park';
        const parked = await step(b, sessionId, 'run', input);
        expect(parked.error).toBeUndefined();
        expect(parked.status).toBe('parked');
        const wait = parked.waits![0]!;
        expect(wait).toMatchObject({ kind: 'elicitation', inputKey: 'confirm', callId: 'call_t' });
        expect(wait.requestState).toBeUndefined(); // shown to hosts without the server's state
        const stored = await storeView(b, sessionId, wait.id);
        expect(typeof stored.wait?.requestState).toBe('string');
        expect(calls()).toHaveLength(1);

        const decided = await step(b, sessionId, 'decide', {
          ...input,
          PARK_WAIT: wait.id,
          PARK_REASON: 'ana confirmed',
        });
        expect(decided.wait).toMatchObject({ status: 'decided', decision: { action: 'accept' } });
        expect(calls()).toHaveLength(1);

        const resumed = await step(b, sessionId, 'resume', input);
        expect(resumed.error).toBeUndefined();
        expect(resumed.events!.map((e) => e.type)).toContain('session.completed');

        // exactly two tools/call: the first, and one retry carrying the answer and the state
        // that a server process of the first step minted (the retry's process verified it)
        const sent = calls();
        expect(sent).toHaveLength(2);
        expect(sent[0]).not.toHaveProperty('inputResponses');
        expect(sent[1]).toMatchObject({
          inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
          requestState: { amount: 42 },
        });
        expect(sent[0]!.pid).not.toBe(sent[1]!.pid);
        expect(effectLines()).toHaveLength(1);
        const after = await storeView(b, sessionId, wait.id);
        expect(after.session?.status).toBe('completed');
        expect(after.waits.waits).toEqual([]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
