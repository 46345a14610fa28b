import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionStore, Wait } from '../../../src/index.js';
import { PostgresSessionStore } from '../../../src/session/postgres.js';
import { SqliteSessionStore } from '../../../src/session/sqlite.js';
import { startChild } from '../../support/child-agent.js';
import { databaseUrl } from '../../support/database.js';
import { ofType } from '../../support/run-helpers.js';
import { TASKS_SERVER, requestsFor, startTasksFixture, unendedTasks } from './tasks-fixture.js';
import type { TasksFixture } from './tasks-fixture.js';

// Durable tasks across processes (SPEC 15.3 and 15.1): a run whose call became a task parks
// (or its process dies) and its process exits; other processes decide its waits and resume
// it, polling the task on: the server never sees a second tools/call. The store is all the
// processes share: a SQLite file with the tasks fixture over stdio (a server process per
// agent process, all on one state folder), and PostgreSQL with the fixture over Streamable
// HTTP (one server process for the file). The child is test/fixtures/tasks/task-agent.ts.

const CHILD = 'test/fixtures/tasks/task-agent.ts';
const url = databaseUrl();

interface Event {
  readonly type: string;
  readonly [key: string]: unknown;
}
interface StepResult {
  readonly status?: string;
  readonly waits?: Wait[];
  readonly wait?: Wait;
  readonly events?: Event[];
  readonly error?: string;
  /** How often the process's elicitation handler was called. */
  readonly asked: number;
  /** How often the process's policy parked the call on an approval. */
  readonly approvals: number;
}

/** Where the processes keep their sessions, and the tasks fixture they reach. */
interface Setup {
  readonly env: Record<string, string>;
  readonly fixture: TasksFixture;
  store(): SessionStore & { close(): unknown };
  cleanup(): Promise<void>;
}

async function sqliteOverStdio(): Promise<Setup> {
  const fixture = await startTasksFixture('stdio');
  const dir = mkdtempSync(join(tmpdir(), 'muster-task-processes-'));
  const path = join(dir, 'sessions.db');
  return {
    env: {
      TASK_STORE: 'sqlite',
      TASK_DB: path,
      TASK_SERVER: TASKS_SERVER,
      TASK_STATE: fixture.dir,
    },
    fixture,
    store: () => new SqliteSessionStore({ path }),
    cleanup: async () => {
      await fixture.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresOverHttp(): Promise<Setup> {
  const fixture = await startTasksFixture('http');
  const schema = `muster_tasks_${randomBytes(5).toString('hex')}`;
  return {
    env: {
      TASK_STORE: 'postgres',
      TASK_DB: url!,
      TASK_SCHEMA: schema,
      TASK_URL: (fixture.config as { url: string }).url,
      TASK_STATE: fixture.dir,
      // a lease renewal is a round trip to the database: a busy machine may take a while
      TASK_LEASE_MS: '2000',
    },
    fixture,
    store: () => new PostgresSessionStore({ connectionString: url!, schema }),
    cleanup: async () => {
      await fixture.stop();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

const setups: [string, () => Promise<Setup>][] = [['SQLite, stdio', sqliteOverStdio]];
if (url) setups.push(['PostgreSQL, Streamable HTTP', postgresOverHttp]);

describe.each(setups)('a task across processes (%s)', (_name, makeSetup) => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await makeSetup();
  });
  afterAll(async () => {
    await setup?.cleanup();
  });

  /** One step in a process of its own, which must exit by itself, with 0. */
  async function step(
    sessionId: string,
    mode: 'run' | 'decide' | 'resume',
    more: Record<string, string> = {},
  ): Promise<StepResult> {
    const child = startChild(CHILD, {
      ...setup.env,
      TASK_SESSION: sessionId,
      TASK_MODE: mode,
      ...more,
    });
    const result = JSON.parse(await child.line('RESULT')) as StepResult;
    expect(await child.exited, `${mode}: ${child.stderr()}`).toEqual({ code: 0, signal: null });
    return result;
  }

  /** Starts a step whose process the test SIGKILLs at its first `tool.task`: the task id. */
  async function killedWhilePolling(
    sessionId: string,
    mode: 'run' | 'resume',
    more: Record<string, string>,
  ): Promise<string> {
    const child = startChild(CHILD, {
      ...setup.env,
      TASK_SESSION: sessionId,
      TASK_MODE: mode,
      TASK_READY: '1',
      ...more,
    });
    const taskId = await child.line('READY');
    // the handle was committed before the first poll
    expect(await waitsOf(sessionId)).toMatchObject([
      { kind: 'task', callId: 'call_task', task: { taskId } },
    ]);
    child.child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    return taskId;
  }

  async function waitsOf(sessionId: string): Promise<readonly Wait[]> {
    const store = setup.store();
    try {
      return (await store.waits!.list({ sessionId })).waits;
    } finally {
      await store.close();
    }
  }

  const log = () => setup.fixture.log();
  const calls = () => log().filter((r) => r.method === 'tools/call');

  it('a run still polling a 5-second task after parkAfterMs (1 s) parks on a task wait and its process exits; another process resumes, polls, and the model gets the result of the one tools/call', async () => {
    const sessionId = 'task-park-exit';
    const before = calls().length;
    const parked = await step(sessionId, 'run', { TASK_MS: '5000', TASK_PARK_AFTER_MS: '1000' });
    expect(parked.error).toBeUndefined();
    expect(parked.status).toBe('parked');
    expect(parked.waits).toHaveLength(1);
    const wait = parked.waits![0]!;
    expect(wait).toMatchObject({
      kind: 'task',
      callId: 'call_task',
      toolName: 'mcp__t__finish',
      server: 't',
      status: 'pending',
      task: { status: 'working' },
    });
    const taskId = wait.task!.taskId;
    expect(parked.events!.map((e) => e.type)).toContain('session.parked');
    expect(ofType(parked.events as never, 'tool.completed')).toEqual([]);
    const pollsBefore = requestsFor(log(), 'tasks/get', taskId);
    expect(pollsBefore).toBeGreaterThanOrEqual(1);

    const resumed = await step(sessionId, 'resume');
    expect(resumed.error).toBeUndefined();
    expect(resumed.status).toBe('session.completed');
    expect(resumed.events!.find((e) => e.type === 'session.completed')).toMatchObject({
      content: 'got: done',
    });
    expect(resumed.events!.find((e) => e.type === 'tool.completed')).toMatchObject({
      callId: 'call_task',
      isError: false,
      content: 'done',
    });
    // the resuming process polled (its own connection), and no call was sent again
    expect(requestsFor(log(), 'tasks/get', taskId)).toBeGreaterThan(pollsBefore);
    expect(calls().length - before).toBe(1);
    expect(requestsFor(log(), 'tasks/cancel', taskId)).toBe(0);

    const store = setup.store();
    try {
      expect((await store.get(sessionId))?.status).toBe('completed');
      expect((await store.waits!.list({ sessionId })).waits).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a process SIGKILLed while it polls leaves the handle in the session: a resume polls on, and the server never sees a second tools/call', async () => {
    const sessionId = 'task-sigkill';
    const before = calls().length;
    const taskId = await killedWhilePolling(sessionId, 'run', { TASK_MS: '1500' });

    const resumed = await step(sessionId, 'resume');
    expect(resumed.error).toBeUndefined();
    expect(resumed.events!.find((e) => e.type === 'session.completed')).toMatchObject({
      content: 'got: done',
    });
    expect(calls().length - before).toBe(1);
    expect(requestsFor(log(), 'tasks/cancel', taskId)).toBe(0);
  });

  it("a task's question parks the run on an elicitation wait beside its task wait and the process exits; a second process decides it; a third sends the answer with one tasks/update and polls on: the person was asked once, the model gets the task's result", async () => {
    const sessionId = 'task-input-three';
    // the server shows the answer only 600 ms after it came: it asks again meanwhile
    const ask = { TASK_TOOL: 'ask', TASK_LAG_MS: '600' };
    const parked = await step(sessionId, 'run', ask);
    expect(parked.error).toBeUndefined();
    expect(parked.status).toBe('parked');
    expect(parked.asked).toBe(1);
    expect(parked.waits!.map((w) => w.kind).sort()).toEqual(['elicitation', 'task']);
    const form = parked.waits!.find((w) => w.kind === 'elicitation')!;
    expect(form).toMatchObject({ callId: 'call_task', message: 'Go on?', status: 'pending' });
    const taskId = parked.waits!.find((w) => w.kind === 'task')!.task!.taskId;
    // both waits are in the store once the process is gone
    expect((await waitsOf(sessionId)).map((w) => w.kind).sort()).toEqual(['elicitation', 'task']);
    expect(requestsFor(log(), 'tasks/update', taskId)).toBe(0);

    const decided = await step(sessionId, 'decide', {
      ...ask,
      TASK_WAIT: form.id,
      TASK_DECISION: JSON.stringify({ action: 'accept', content: { ok: true } }),
    });
    expect(decided.wait).toMatchObject({ id: form.id, status: 'decided' });
    expect(decided.asked).toBe(0);
    expect(requestsFor(log(), 'tasks/update', taskId)).toBe(0);

    const resumed = await step(sessionId, 'resume', ask);
    expect(resumed.error).toBeUndefined();
    expect(resumed.events!.find((e) => e.type === 'session.completed')).toMatchObject({
      content: 'got: confirmed {"ok":true}',
    });
    // asked once (the first process), over the polls that repeated the question after it
    expect(resumed.asked).toBe(0);
    const after = log();
    expect(requestsFor(after, 'tasks/update', taskId)).toBe(1);
    const update = after.findIndex((r) => r.method === 'tasks/update' && r.taskId === taskId);
    const askedAgain = after
      .slice(update)
      .filter(
        (r) => r.method === 'tasks/get' && r.taskId === taskId && r.status === 'input_required',
      );
    expect(askedAgain.length).toBeGreaterThanOrEqual(2);
    expect(after.filter((r) => r.method === 'tools/call' && r.tool === 'ask')).toHaveLength(1);
    expect(requestsFor(after, 'tasks/cancel', taskId)).toBe(0);
    expect(await waitsOf(sessionId)).toEqual([]);
  });

  it('an approval decided before the call became a task is not asked again after a crash while the task is polled: the resume polls on, and the task completes', async () => {
    const sessionId = 'task-approved-crash';
    const policy = { TASK_POLICY: 'park' };
    const before = calls().length;
    const parked = await step(sessionId, 'run', policy);
    expect(parked.status).toBe('parked');
    expect(parked.approvals).toBe(1);
    const approval = parked.waits![0]!;
    expect(approval).toMatchObject({ kind: 'approval', callId: 'call_task' });
    expect(calls().length - before).toBe(0);

    await step(sessionId, 'decide', {
      ...policy,
      TASK_WAIT: approval.id,
      TASK_DECISION: JSON.stringify({ decision: 'allow', reason: 'ok by ana' }),
    });
    // the decision applies, the call is sent and becomes a task; its process dies polling
    const taskId = await killedWhilePolling(sessionId, 'resume', { ...policy, TASK_MS: '1500' });
    expect(await waitsOf(sessionId)).toMatchObject([
      { kind: 'task', task: { taskId }, approvedBy: { waitId: approval.id, decision: 'allow' } },
    ]);

    const resumed = await step(sessionId, 'resume', policy);
    expect(resumed.error).toBeUndefined();
    expect(resumed.approvals).toBe(0);
    expect(resumed.events!.map((e) => e.type)).not.toContain('session.parked');
    expect(resumed.events!.find((e) => e.type === 'tool.completed')).toMatchObject({
      callId: 'call_task',
      isError: false,
      content: 'done',
    });
    expect(resumed.events!.find((e) => e.type === 'session.completed')).toMatchObject({
      content: 'got: done',
    });
    expect(calls().length - before).toBe(1);
    expect(requestsFor(log(), 'tasks/cancel', taskId)).toBe(0);
  });

  it('no task was left without an end across the processes, and over HTTP every tasks/* request named its task in Mcp-Name', () => {
    const log = setup.fixture.log();
    expect(log.filter((r) => r.method === 'task-created').length).toBeGreaterThanOrEqual(4);
    expect(unendedTasks(log)).toEqual([]);
    expect(log.filter((r) => r.method === 'header-mismatch')).toEqual([]);
  });
});
